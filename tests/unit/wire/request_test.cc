#include "wire/request.h"

#include <gtest/gtest.h>

#include "wire/client_messages.h"
#include "wire/endian_internal.h"
#include "wire_test_util.h"

namespace quarry::wire {
namespace {

using testing::Frame;
using testing::Json;
using testing::Kind0;
using testing::Kind1;
using testing::MsgBody;
using testing::MsgOp;
using testing::PutI32;

Status Parse(std::string_view message, Request* request = nullptr) {
  CompressionContext codec;
  Request scratch;
  return ParseRequest(message, codec, request ? request : &scratch);
}

ErrorCode ParseCode(std::string_view message) { return Parse(message).code(); }

// --- OP_MSG ------------------------------------------------------------------------------

TEST(OpMsgParseTest, DecodesBodyCommandNameAndDatabase) {
  bson::Document body = Json(R"({"ping": 1, "$db": "admin"})");
  std::string message = BuildOpMsgRequest(42, body);
  Request request;
  ASSERT_TRUE(Parse(message, &request).ok());
  EXPECT_EQ(request.op_code, OpCode::kMsg);
  EXPECT_EQ(request.request_id, 42);
  EXPECT_FALSE(request.was_compressed);
  EXPECT_EQ(request.flag_bits, 0u);
  EXPECT_FALSE(request.more_to_come());
  EXPECT_FALSE(request.exhaust_allowed());
  EXPECT_EQ(request.command_name(), "ping");
  EXPECT_EQ(request.database(), "admin");
  EXPECT_EQ(request.body.bytes(), body.bytes());
  EXPECT_TRUE(request.sequences.empty());
  EXPECT_EQ(request.physical_size, message.size());
  EXPECT_EQ(request.logical_size, message.size());
}

TEST(OpMsgParseTest, DatabaseIsEmptyWhenDollarDbIsMissingOrNotAString) {
  Request request;
  const std::string missing = BuildOpMsgRequest(1, Json(R"({"ping": 1})"));
  ASSERT_TRUE(Parse(missing, &request).ok());
  EXPECT_EQ(request.database(), "");
  const std::string number = BuildOpMsgRequest(1, Json(R"({"ping": 1, "$db": 5})"));
  ASSERT_TRUE(Parse(number, &request).ok());
  EXPECT_EQ(request.database(), "");
}

TEST(OpMsgParseTest, DecodesKindOneDocumentSequences) {
  bson::Document body = Json(R"({"insert": "c", "$db": "test"})");
  bson::Document a = Json(R"({"_id": 1})"), b = Json(R"({"_id": 2, "x": "y"})");
  bson::Document u = Json(R"({"q": {}, "u": {"$set": {"a": 1}}})");
  std::string message =
      BuildOpMsgRequest(3, body, {{"documents", {a, b}}, {"updates", {u}}});
  Request request;
  Status s = Parse(message, &request);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(request.sequences.size(), 2u);
  const DocumentSequence* documents = request.FindSequence("documents");
  ASSERT_NE(documents, nullptr);
  ASSERT_EQ(documents->documents.size(), 2u);
  EXPECT_EQ(documents->documents[0].bytes(), a.bytes());
  EXPECT_EQ(documents->documents[1].Get("x").String(), "y");
  ASSERT_NE(request.FindSequence("updates"), nullptr);
  EXPECT_EQ(request.FindSequence("updates")->documents.size(), 1u);
  EXPECT_EQ(request.FindSequence("deletes"), nullptr);
}

TEST(OpMsgParseTest, SectionsMayComeInAnyOrderAndSequencesMayBeEmpty) {
  bson::Document body = Json(R"({"insert": "c", "$db": "test"})");
  std::string sections = Kind1("documents", {}) + Kind0(body);
  Request request;
  const std::string message = Frame(MsgOp(), MsgBody(0, sections));
  Status s = Parse(message, &request);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(request.command_name(), "insert");
  ASSERT_NE(request.FindSequence("documents"), nullptr);
  EXPECT_TRUE(request.FindSequence("documents")->documents.empty());
}

TEST(OpMsgParseTest, SecondBodyIs40430) {
  bson::Document body = Json(R"({"ping": 1})");
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, Kind0(body) + Kind0(body)))),
            ErrorCode::kLocation40430);
}

TEST(OpMsgParseTest, MissingBodyIs40587) {
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, ""))), ErrorCode::kLocation40587);
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, Kind1("documents", {Json("{}")})))),
            ErrorCode::kLocation40587);
}

TEST(OpMsgParseTest, RepeatedSequenceIdentifierIs40431) {
  std::string sections = Kind0(Json(R"({"insert": "c"})")) + Kind1("documents", {Json("{}")}) +
                         Kind1("documents", {Json("{}")});
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, sections))), ErrorCode::kLocation40431);
}

TEST(OpMsgParseTest, UnknownSectionKindIs40432AndClosesTheConnection) {
  std::string sections = Kind0(Json(R"({"ping": 1})")) + "\x02";
  Status s = Parse(Frame(MsgOp(), MsgBody(0, sections)));
  EXPECT_EQ(s.code(), ErrorCode::kLocation40432);
  EXPECT_TRUE(IsInCategory(s.code(), kCloseConnection));
}

TEST(OpMsgParseTest, FieldInBodyAndAsSequenceIs40433) {
  std::string sections = Kind0(Json(R"({"insert": "c", "documents": []})")) +
                         Kind1("documents", {Json("{}")});
  Status s = Parse(Frame(MsgOp(), MsgBody(0, sections)));
  EXPECT_EQ(s.code(), ErrorCode::kLocation40433);
  EXPECT_FALSE(IsInCategory(s.code(), kCloseConnection));
}

TEST(OpMsgParseTest, ThirdSequenceIsTooManyDocumentSequences) {
  std::string sections = Kind0(Json(R"({"x": 1})")) + Kind1("a", {}) + Kind1("b", {}) +
                         Kind1("c", {});
  Status s = Parse(Frame(MsgOp(), MsgBody(0, sections)));
  EXPECT_EQ(s.code(), ErrorCode::kTooManyDocumentSequences);
  EXPECT_TRUE(IsInCategory(s.code(), kCloseConnection));
}

TEST(OpMsgParseTest, MoreToComeAndExhaustAllowedFlagsAreExposed) {
  bson::Document body = Json(R"({"insert": "c"})");
  Request request;
  ASSERT_TRUE(Parse(BuildOpMsgRequest(1, body, {}, kMoreToCome), &request).ok());
  EXPECT_TRUE(request.more_to_come());
  EXPECT_FALSE(request.exhaust_allowed());
  ASSERT_TRUE(Parse(BuildOpMsgRequest(1, body, {}, kExhaustAllowed), &request).ok());
  EXPECT_TRUE(request.exhaust_allowed());
  EXPECT_FALSE(request.more_to_come());
}

TEST(OpMsgParseTest, UnknownOptionalFlagBitsAreIgnored) {
  Request request;
  ASSERT_TRUE(Parse(BuildOpMsgRequest(1, Json(R"({"a": 1})"), {}, 1u << 20 | 1u << 31), &request)
                  .ok());
}

TEST(OpMsgParseTest, UnknownRequiredFlagBitIsIllegalOpMsgFlag) {
  for (std::uint32_t bit : {1u << 2, 1u << 8, 1u << 15}) {
    Status s = Parse(Frame(MsgOp(), MsgBody(bit, Kind0(Json(R"({"a": 1})")))));
    EXPECT_EQ(s.code(), ErrorCode::kIllegalOpMsgFlag) << bit;
    EXPECT_TRUE(IsInCategory(s.code(), kCloseConnection));
  }
}

TEST(OpMsgParseTest, ValidChecksumIsVerifiedAndStripped) {
  bson::Document body = Json(R"({"insert": "c", "$db": "d"})");
  std::string message = BuildOpMsgRequest(9, body, {{"documents", {Json(R"({"a": 1})")}}},
                                          kChecksumPresent);
  Request request;
  Status s = Parse(message, &request);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(request.checksum_present());
  EXPECT_EQ(request.body.bytes(), body.bytes());
  ASSERT_EQ(request.sequences.size(), 1u);
  EXPECT_EQ(request.sequences[0].documents.size(), 1u);
}

TEST(OpMsgParseTest, WrongChecksumIsChecksumMismatch) {
  std::string message = BuildOpMsgRequest(9, Json(R"({"ping": 1})"), {}, kChecksumPresent);
  std::string bad_sum = message;
  bad_sum.back() ^= 0x01;
  EXPECT_EQ(ParseCode(bad_sum), ErrorCode::kChecksumMismatch);
  std::string bad_body = message;
  bad_body[26] ^= 0x01;  // inside the body's first key
  EXPECT_EQ(ParseCode(bad_body), ErrorCode::kChecksumMismatch);
  EXPECT_TRUE(IsInCategory(ErrorCode::kChecksumMismatch, kCloseConnection));
}

TEST(OpMsgParseTest, ChecksumFlagWithoutRoomForOneIsRejected) {
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(kChecksumPresent, "ab"))),
            ErrorCode::kProtocolError);
}

TEST(OpMsgParseTest, TooShortForFlagBitsIsProtocolError) {
  EXPECT_EQ(ParseCode(Frame(MsgOp(), "abc")), ErrorCode::kProtocolError);
  EXPECT_EQ(ParseCode(Frame(MsgOp(), "")), ErrorCode::kProtocolError);
}

TEST(OpMsgParseTest, BadSequenceSizesAreProtocolErrors) {
  std::string body = Kind0(Json(R"({"insert": "c"})"));
  auto with_sequence = [&](std::int32_t size, std::string_view tail) {
    std::string section(1, '\1');
    PutI32(size, &section);
    section.append(tail);
    return Frame(MsgOp(), MsgBody(0, body + section));
  };
  EXPECT_EQ(ParseCode(with_sequence(4, "")), ErrorCode::kProtocolError);       // no identifier
  EXPECT_EQ(ParseCode(with_sequence(-1, "x")), ErrorCode::kProtocolError);     // negative
  EXPECT_EQ(ParseCode(with_sequence(100, "docs\0")), ErrorCode::kProtocolError);  // overruns
  EXPECT_EQ(ParseCode(with_sequence(8, "docs")), ErrorCode::kProtocolError);   // no NUL
  std::string truncated_header = body + "\x01\x05";
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, truncated_header))), ErrorCode::kProtocolError);
}

TEST(OpMsgParseTest, SequenceDocumentsMustFillTheSectionExactly) {
  bson::Document doc = Json(R"({"a": 1})");
  std::string payload = std::string("documents", 10) + doc.bytes() + "\x01\x02";
  std::string section(1, '\1');
  PutI32(static_cast<std::int32_t>(payload.size() + 4), &section);
  section += payload;
  Status s = Parse(Frame(MsgOp(), MsgBody(0, Kind0(Json(R"({"insert": "c"})")) + section)));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidBSON);
}

TEST(OpMsgParseTest, InvalidBsonAnywhereIsInvalidBson) {
  bson::Document good = Json(R"({"a": "xyz"})");
  std::string bad_type = good.bytes();
  bad_type[4] = '\x42';  // unknown element type
  std::string bad_string = good.bytes();
  bad_string[7] = '\x40';  // string length runs past the document
  for (const std::string& bad : {bad_type, bad_string}) {
    Status s = Parse(Frame(MsgOp(), MsgBody(0, std::string(1, '\0') + bad)));
    EXPECT_EQ(s.code(), ErrorCode::kInvalidBSON) << s.ToString();
    EXPECT_TRUE(IsInCategory(s.code(), kCloseConnection));
    std::string sections = Kind0(Json(R"({"insert": "c"})")) + "\x01";
    std::string payload = std::string("documents", 10) + bad;
    PutI32(static_cast<std::int32_t>(payload.size() + 4), &sections);
    sections += payload;
    EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, sections))), ErrorCode::kInvalidBSON);
  }
}

TEST(OpMsgParseTest, BodyLengthBeyondMessageIsInvalidBson) {
  std::string body = Json(R"({"a": 1})").bytes();
  body[0] = 100;
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, std::string(1, '\0') + body))),
            ErrorCode::kInvalidBSON);
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, std::string("\0\x05\0", 3)))),
            ErrorCode::kInvalidBSON);
}

TEST(OpMsgParseTest, DocumentOverInternalLimitIsBsonObjectTooLarge) {
  std::string sections(1, '\0');
  PutI32(17 * 1024 * 1024, &sections);
  sections += std::string(64, 'x');
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(0, sections))), ErrorCode::kBSONObjectTooLarge);
}

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
  internal::StoreU32(8, small.data());
  EXPECT_EQ(ParseCode(small), ErrorCode::kProtocolError);
  std::string huge = message;
  internal::StoreU32(48000001, huge.data());
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
    docs.push_back(Json(R"({"name": "some repetitive text", "n": )" + std::to_string(doc_idx) +
                        "}"));
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
  EXPECT_EQ(ParseCode(CompressedFrame(2013, static_cast<std::int32_t>(payload.size()), 200,
                                      payload)),
            ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, OnlyOpMsgAndOpQueryMayBeWrapped) {
  for (std::int32_t op : {2012, 2002, 1, 0}) {
    EXPECT_EQ(ParseCode(CompressedFrame(op, 4, 1, "abcd")), ErrorCode::kProtocolError) << op;
  }
}

TEST(CompressedFramingTest, UncompressedSizeOutsideLimitsIsRejected) {
  EXPECT_EQ(ParseCode(CompressedFrame(2013, -1, 2, "abcd")), ErrorCode::kProtocolError);
  EXPECT_EQ(ParseCode(CompressedFrame(2013, 48000000 - 15, 2, "abcd")),
            ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, TruncatedPrefixIsRejected) {
  EXPECT_EQ(ParseCode(Frame(2012, "12345678")), ErrorCode::kProtocolError);
}

TEST(CompressedFramingTest, UncompressedSizeThatLiesIsRejected) {
  std::string plain = BuildOpMsgRequest(1, Json(R"({"ping": 1, "pad": "aaaaaaaaaaaaaaaaaa"})"));
  for (Compressor c : {Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd}) {
    std::string compressed = CompressMessage(plain, c);
    std::int32_t real = internal::LoadI32(compressed.data() + 20);
    for (std::int32_t lie : {real - 1, real + 1, real * 1000}) {
      internal::StoreU32(static_cast<std::uint32_t>(lie), compressed.data() + 20);
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
