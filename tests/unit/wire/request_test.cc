// ParseRequest on framing, OP_QUERY and OP_COMPRESSED.
#include "wire/request.h"

#include <gtest/gtest.h>

#include "base/endian.h"
#include "wire/client_messages.h"
#include "wire_test_util.h"

namespace quarry::wire {
namespace {

using testing::Frame;
using testing::Json;
using testing::Kind0;
using testing::Kind1;
using testing::MsgBody;
using testing::MsgOp;
using testing::Parse;
using testing::ParseCode;
using testing::PutI32;

// --- framing -------------------------------------------------------------------------------

TEST(FramingTest, MessageShorterThanHeaderIsRejected) {
  EXPECT_EQ(ParseCode(""), ErrorCode::kProtocolError);
  EXPECT_EQ(ParseCode(std::string(15, '\0')), ErrorCode::kProtocolError);
}

TEST(FramingTest, LengthFieldMustMatchTheBytes) {
  std::string message = BuildOpMsgRequest(1, Json(R"({"ping": 1})"));
  std::string longer = message + "x";
  EXPECT_EQ(ParseCode(longer), ErrorCode::kProtocolError);
  EXPECT_EQ(ParseCode(message.substr(0, message.size() - 1)), ErrorCode::kProtocolError);
  std::string small = message;
  StoreLittleEndian32(8, small.data());
  EXPECT_EQ(ParseCode(small), ErrorCode::kProtocolError);
  std::string huge = message;
  StoreLittleEndian32(48000001, huge.data());
  EXPECT_EQ(ParseCode(huge), ErrorCode::kProtocolError);
}

TEST(FramingTest, LegacyAndUnknownOpcodesAreRejectedByName) {
  for (std::int32_t op : {1, 2001, 2002, 2005, 2006, 2007, 0, 9999, -1}) {
    Status s = Parse(Frame(op, std::string(40, '\0')));
    EXPECT_EQ(s.code(), ErrorCode::kProtocolError) << op;
    EXPECT_TRUE(IsInCategory(s.code(), kCloseConnection));
  }
  Status insert = Parse(Frame(2002, "abcd"));
  EXPECT_NE(insert.reason().find("OP_INSERT"), std::string_view::npos) << insert.reason();
}

// --- OP_QUERY ------------------------------------------------------------------------------

TEST(OpQueryParseTest, DecodesTheHandshake) {
  bson::Document hello = Json(R"({"isMaster": 1, "helloOk": true, "client": {"x": 1}})");
  std::string message = BuildOpQueryRequest(5, "admin.$cmd", hello);
  Request request;
  ASSERT_TRUE(Parse(message, &request).ok());
  EXPECT_EQ(request.op_code, OpCode::kQuery);
  EXPECT_EQ(request.request_id, 5);
  EXPECT_EQ(request.full_collection_name, "admin.$cmd");
  EXPECT_EQ(request.database(), "admin");
  EXPECT_EQ(request.number_to_skip, 0);
  EXPECT_EQ(request.number_to_return, -1);
  EXPECT_EQ(request.command_name(), "isMaster");
  EXPECT_EQ(request.body.bytes(), hello.bytes());
  EXPECT_FALSE(request.has_return_fields_selector);
  EXPECT_FALSE(request.more_to_come());
}

TEST(OpQueryParseTest, UnwrapsDollarQuery) {
  bson::Document wrapped =
      Json(R"({"$query": {"ismaster": 1}, "$readPreference": {"mode": "primary"}})");
  Request request;
  const std::string message = BuildOpQueryRequest(1, "admin.$cmd", wrapped);
  ASSERT_TRUE(Parse(message, &request).ok());
  EXPECT_EQ(request.command_name(), "ismaster");
  EXPECT_FALSE(request.body.Has("$readPreference"));
}

TEST(OpQueryParseTest, AcceptsReturnFieldsSelector) {
  std::string message =
      BuildOpQueryRequest(1, "admin.$cmd", Json(R"({"ismaster": 1})")).substr(16) +
      Json(R"({"a": 1})").bytes();
  Request request;
  const std::string framed = Frame(2004, message);
  ASSERT_TRUE(Parse(framed, &request).ok());
  EXPECT_TRUE(request.has_return_fields_selector);
  EXPECT_TRUE(request.return_fields_selector.Has("a"));
}

TEST(OpQueryParseTest, MalformedQueriesAreRejected) {
  std::string good = BuildOpQueryRequest(1, "admin.$cmd", Json(R"({"ismaster": 1})")).substr(16);
  EXPECT_EQ(ParseCode(Frame(2004, good.substr(0, 3))), ErrorCode::kProtocolError);
  EXPECT_EQ(ParseCode(Frame(2004, good.substr(0, 10))), ErrorCode::kProtocolError);  // no NUL
  EXPECT_EQ(ParseCode(Frame(2004, good.substr(0, 18))), ErrorCode::kProtocolError);  // counters
  EXPECT_EQ(ParseCode(Frame(2004, good.substr(0, good.size() - 1))), ErrorCode::kInvalidBSON);
  EXPECT_EQ(ParseCode(Frame(2004, good + "\x01\x02")), ErrorCode::kInvalidBSON);
  std::string trailing = good + Json("{}").bytes() + "z";
  EXPECT_EQ(ParseCode(Frame(2004, trailing)), ErrorCode::kProtocolError);
}

// --- OP_COMPRESSED -------------------------------------------------------------------------

class CompressedRequestTest : public ::testing::TestWithParam<Compressor> {};

TEST_P(CompressedRequestTest, DecompressesOpMsgWithSequences) {
  bson::Document body = Json(R"({"insert": "c", "$db": "test"})");
  std::vector<bson::Document> docs;
  for (int doc_idx = 0; doc_idx < 50; ++doc_idx) {
    docs.push_back(
        Json(R"({"name": "some repetitive text", "n": )" + std::to_string(doc_idx) + "}"));
  }
  std::vector<bson::DocumentView> views(docs.begin(), docs.end());
  std::string plain = BuildOpMsgRequest(77, body, {{"documents", views}});
  std::string compressed = CompressMessage(plain, GetParam());
  CompressionContext codec({GetParam()});
  Request request;
  {
    StatusWith<Request> parsed = ParseRequest(compressed, codec);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    request = std::move(parsed).value();  // views stay valid: the request owns the bytes
  }
  compressed.assign(compressed.size(), '\0');
  EXPECT_EQ(request.op_code, OpCode::kMsg);
  EXPECT_EQ(request.request_id, 77);
  EXPECT_TRUE(request.was_compressed);
  EXPECT_EQ(request.compressor, GetParam());
  EXPECT_EQ(request.logical_size, plain.size());
  EXPECT_EQ(request.body.bytes(), body.bytes());
  ASSERT_EQ(request.sequences.size(), 1u);
  ASSERT_EQ(request.sequences[0].documents.size(), 50u);
  EXPECT_EQ(request.sequences[0].documents[49].bytes(), docs[49].bytes());
  Request copy = request;
  EXPECT_EQ(copy.sequences[0].identifier, "documents");
}

TEST_P(CompressedRequestTest, DecompressesOpQuery) {
  std::string plain = BuildOpQueryRequest(3, "admin.$cmd", Json(R"({"hello": 1})"));
  CompressionContext codec({GetParam()});
  StatusWith<Request> parsed = ParseRequest(CompressMessage(plain, GetParam()), codec);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().op_code, OpCode::kQuery);
  EXPECT_EQ(parsed.value().command_name(), "hello");
  EXPECT_EQ(parsed.value().database(), "admin");
}

TEST_P(CompressedRequestTest, ChecksumCoversTheUncompressedMessage) {
  std::string plain = BuildOpMsgRequest(3, Json(R"({"ping": 1})"), {}, kChecksumPresent);
  CompressionContext codec({GetParam()});
  StatusWith<Request> parsed = ParseRequest(CompressMessage(plain, GetParam()), codec);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed.value().checksum_present());
}

INSTANTIATE_TEST_SUITE_P(AllCompressors, CompressedRequestTest,
                         ::testing::Values(Compressor::kNoop, Compressor::kSnappy,
                                           Compressor::kZlib, Compressor::kZstd),
                         [](const auto& info) { return std::string(CompressorName(info.param)); });

std::string CompressedFrame(std::int32_t original_op, std::int32_t uncompressed_size,
                            std::uint8_t compressor_id, std::string_view payload) {
  std::string body;
  PutI32(original_op, &body);
  PutI32(uncompressed_size, &body);
  body.push_back(static_cast<char>(compressor_id));
  body.append(payload);
  return Frame(2012, body);
}

TEST(CompressedFramingTest, CompressorNotEnabledIsRejected) {
  std::string plain = BuildOpMsgRequest(1, Json(R"({"ping": 1})"));
  CompressionContext codec({Compressor::kZstd});
  StatusWith<Request> parsed = ParseRequest(CompressMessage(plain, Compressor::kZlib), codec);
  EXPECT_EQ(parsed.status().code(), ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, UnknownCompressorIdIsRejected) {
  std::string payload = BuildOpMsgRequest(1, Json(R"({"ping": 1})")).substr(16);
  EXPECT_EQ(ParseCode(CompressedFrame(2013, static_cast<std::int32_t>(payload.size()), 4, payload)),
            ErrorCode::kProtocolError);
  EXPECT_EQ(
      ParseCode(CompressedFrame(2013, static_cast<std::int32_t>(payload.size()), 200, payload)),
      ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, OnlyOpMsgAndOpQueryMayBeWrapped) {
  for (std::int32_t op : {2012, 2002, 1, 0}) {
    EXPECT_EQ(ParseCode(CompressedFrame(op, 4, 1, "abcd")), ErrorCode::kProtocolError) << op;
  }
}

TEST(CompressedFramingTest, UncompressedSizeOutsideLimitsIsRejected) {
  EXPECT_EQ(ParseCode(CompressedFrame(2013, -1, 2, "abcd")), ErrorCode::kProtocolError);
  EXPECT_EQ(ParseCode(CompressedFrame(2013, 48000000 - 15, 2, "abcd")), ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, TruncatedPrefixIsRejected) {
  EXPECT_EQ(ParseCode(Frame(2012, "12345678")), ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, UncompressedSizeThatLiesIsRejected) {
  std::string plain = BuildOpMsgRequest(1, Json(R"({"ping": 1, "pad": "aaaaaaaaaaaaaaaaaa"})"));
  for (Compressor c : {Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd}) {
    std::string compressed = CompressMessage(plain, c);
    std::int32_t real = LoadLittleEndianInt32(compressed.data() + 20);
    for (std::int32_t lie : {real - 1, real + 1, real * 1000}) {
      StoreLittleEndian32(static_cast<std::uint32_t>(lie), compressed.data() + 20);
      EXPECT_EQ(ParseCode(compressed), ErrorCode::kProtocolError) << CompressorName(c) << lie;
    }
  }
}

TEST(CompressedFramingTest, CorruptPayloadIsRejected) {
  std::string plain = BuildOpMsgRequest(1, Json(R"({"ping": 1, "pad": "aaaaaaaaaaaaaaaaaa"})"));
  // zlib streams carry an Adler-32, so every damaged byte is caught.
  std::string zlib = CompressMessage(plain, Compressor::kZlib);
  for (std::size_t pos = 25; pos < zlib.size(); ++pos) {
    std::string damaged = zlib;
    damaged[pos] ^= 0x5A;
    EXPECT_FALSE(Parse(damaged).ok()) << "byte " << pos;
  }
  // snappy and zstd (without its optional checksum) may decode damaged literals into other
  // bytes of the right length; what matters is that nothing crashes or overruns.
  for (Compressor c : {Compressor::kSnappy, Compressor::kZstd}) {
    std::string compressed = CompressMessage(plain, c);
    for (std::size_t pos = 25; pos < compressed.size(); ++pos) {
      std::string damaged = compressed;
      damaged[pos] ^= 0x5A;
      Request request;
      if (Parse(damaged, &request).ok()) {
        EXPECT_EQ(request.logical_size, plain.size());
      }
    }
  }
  std::string garbage = CompressedFrame(2013, 100, 1, std::string(30, '\x7f'));
  EXPECT_EQ(ParseCode(garbage), ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, NonFatalErrorLeavesEnvelopeForTheErrorReply) {
  bson::Document body = Json(R"({"ping": 1})");
  std::string plain =
      Frame(MsgOp(), MsgBody(kMoreToCome, Kind0(body) + Kind0(body)), /*request_id=*/31);
  CompressionContext codec;
  Request request;
  Status s = ParseRequest(CompressMessage(plain, Compressor::kSnappy), codec, &request);
  EXPECT_EQ(s.code(), ErrorCode::kLocation40430);
  EXPECT_FALSE(IsInCategory(s.code(), kCloseConnection));
  EXPECT_EQ(request.request_id, 31);
  EXPECT_EQ(request.op_code, OpCode::kMsg);
  EXPECT_TRUE(request.was_compressed);
  EXPECT_EQ(request.compressor, Compressor::kSnappy);
  EXPECT_TRUE(request.more_to_come());
}

}  // namespace
}  // namespace quarry::wire
