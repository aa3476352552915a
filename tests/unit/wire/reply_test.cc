#include "wire/reply.h"

#include <gtest/gtest.h>

#include "base/endian.h"
#include "wire/message_header.h"
#include "wire/request.h"
#include "wire_test_util.h"

namespace quarry::wire {
namespace {

using testing::Json;

TEST(ReplyTest, OpMsgReplyHasZeroFlagsAndOneBodySection) {
  bson::Document body = Json(R"({"ok": 1.0, "n": 3})");
  std::string reply = BuildOpMsg(100, 42, body);
  ASSERT_EQ(reply.size(), 16 + 4 + 1 + body.size());
  MessageHeader header = ReadHeader(reply.data());
  EXPECT_EQ(header.message_length, static_cast<std::int32_t>(reply.size()));
  EXPECT_EQ(header.request_id, 100);
  EXPECT_EQ(header.response_to, 42);
  EXPECT_EQ(header.op_code, 2013);
  EXPECT_EQ(LoadLittleEndian32(reply.data() + 16), 0u);
  EXPECT_EQ(reply[20], '\0');
  EXPECT_EQ(reply.substr(21), body.bytes());

  // The same framing parses back (OP_MSG is symmetric).
  CompressionContext codec;
  StatusWith<Request> parsed = ParseRequest(reply, codec);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().body.Get("n").Int32(), 3);
}

TEST(ReplyTest, OpReplyCarriesOneDocumentWithAwaitCapable) {
  bson::Document doc = Json(R"({"ismaster": true, "ok": 1.0})");
  std::string reply = BuildOpReply(7, 5, doc);
  ASSERT_EQ(reply.size(), 36 + doc.size());
  MessageHeader header = ReadHeader(reply.data());
  EXPECT_EQ(header.message_length, static_cast<std::int32_t>(reply.size()));
  EXPECT_EQ(header.request_id, 7);
  EXPECT_EQ(header.response_to, 5);
  EXPECT_EQ(header.op_code, 1);
  EXPECT_EQ(LoadLittleEndianInt32(reply.data() + 16), 8);  // responseFlags
  EXPECT_EQ(LoadLittleEndianInt32(reply.data() + 20), 0);  // cursorID low
  EXPECT_EQ(LoadLittleEndianInt32(reply.data() + 24), 0);  // cursorID high
  EXPECT_EQ(LoadLittleEndianInt32(reply.data() + 28), 0);  // startingFrom
  EXPECT_EQ(LoadLittleEndianInt32(reply.data() + 32), 1);  // numberReturned
  EXPECT_EQ(reply.substr(36), doc.bytes());
}

TEST(ReplyTest, PrefixPlusDocumentEqualsTheWholeReply) {
  bson::Document doc = Json(R"({"ok": 1.0, "x": "y"})");
  EXPECT_EQ(BuildOpMsgPrefix(3, 4, doc.size()) + doc.bytes(), BuildOpMsg(3, 4, doc));
  EXPECT_EQ(BuildOpReplyPrefix(3, 4, doc.size()) + doc.bytes(), BuildOpReply(3, 4, doc));
  EXPECT_EQ(BuildOpMsgPrefix(3, 4, doc.size()).size(), 21u);
  EXPECT_EQ(BuildOpReplyPrefix(3, 4, doc.size()).size(), 36u);
}

TEST(ReplyTest, CompressedReplyRoundTripsThroughTheParser) {
  bson::Document body = Json(R"({"ok": 1.0, "text": "compress me compress me compress me"})");
  std::string reply = BuildOpMsg(1, 2, body);
  for (Compressor c : {Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd}) {
    CompressionContext codec;
    std::string compressed = codec.CompressMessage(reply, c);
    EXPECT_EQ(ReadHeader(compressed.data()).op_code, 2012);
    StatusWith<Request> parsed = ParseRequest(compressed, codec);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed.value().body.bytes(), body.bytes());
  }
}

TEST(ReplyTest, ErrorReplyHasMongodShape) {
  Status status(ErrorCode::kChecksumMismatch, "bad sum");
  bson::Document doc = BuildErrorReply(status);
  EXPECT_EQ(doc.view().FirstKey(), "ok");
  EXPECT_EQ(doc.Get("ok").type(), bson::Type::kDouble);
  EXPECT_EQ(doc.Get("ok").Double(), 0.0);
  EXPECT_EQ(doc.Get("errmsg").String(), "bad sum");
  EXPECT_EQ(doc.Get("code").type(), bson::Type::kInt32);
  EXPECT_EQ(doc.Get("code").Int32(), 288);
  EXPECT_EQ(doc.Get("codeName").String(), "ChecksumMismatch");
}

TEST(ReplyTest, ErrorReplyIncludesExtraInfoAndLocationNames) {
  Status status = Status(ErrorCode::kLocation40430, "two bodies")
                      .WithExtraInfo(Json(R"({"detail": "x"})").bytes());
  bson::Document doc = BuildErrorReply(status);
  EXPECT_EQ(doc.Get("codeName").String(), "Location40430");
  EXPECT_EQ(doc.Get("detail").String(), "x");
}

}  // namespace
}  // namespace quarry::wire
