#include "wire/message_header.h"

#include <gtest/gtest.h>

#include "wire/limits.h"

namespace quarry::wire {
namespace {

TEST(MessageHeaderTest, RoundTripsLittleEndianFields) {
  MessageHeader header;
  header.message_length = 0x01020304;
  header.request_id = -5;
  header.response_to = 77;
  header.op_code = 2013;
  std::string bytes;
  AppendHeader(header, &bytes);
  ASSERT_EQ(bytes.size(), kHeaderSize);
  EXPECT_EQ(bytes[0], '\x04');
  EXPECT_EQ(bytes[3], '\x01');
  MessageHeader back = ReadHeader(bytes.data());
  EXPECT_EQ(back.message_length, 0x01020304);
  EXPECT_EQ(back.request_id, -5);
  EXPECT_EQ(back.response_to, 77);
  EXPECT_EQ(back.op_code, 2013);
}

TEST(MessageHeaderTest, LengthMustCoverHeaderAndStayUnderMaximum) {
  EXPECT_EQ(CheckMessageLength(15).code(), ErrorCode::kProtocolError);
  EXPECT_EQ(CheckMessageLength(-1).code(), ErrorCode::kProtocolError);
  EXPECT_TRUE(CheckMessageLength(16).ok());
  EXPECT_TRUE(CheckMessageLength(48000000).ok());
  Status too_big = CheckMessageLength(48000001);
  EXPECT_EQ(too_big.code(), ErrorCode::kProtocolError);
  EXPECT_NE(too_big.reason().find("48000000"), std::string_view::npos);
}

TEST(MessageHeaderTest, NamesEveryOpcodeForErrors) {
  EXPECT_EQ(OpCodeName(1), "OP_REPLY");
  EXPECT_EQ(OpCodeName(2001), "OP_UPDATE");
  EXPECT_EQ(OpCodeName(2002), "OP_INSERT");
  EXPECT_EQ(OpCodeName(2004), "OP_QUERY");
  EXPECT_EQ(OpCodeName(2005), "OP_GET_MORE");
  EXPECT_EQ(OpCodeName(2006), "OP_DELETE");
  EXPECT_EQ(OpCodeName(2007), "OP_KILL_CURSORS");
  EXPECT_EQ(OpCodeName(2012), "OP_COMPRESSED");
  EXPECT_EQ(OpCodeName(2013), "OP_MSG");
  EXPECT_EQ(OpCodeName(42), "unknown");
}

TEST(LimitsTest, MatchWhatMongodAdvertises) {
  EXPECT_EQ(kMaxMessageSizeBytes, 48000000u);
  EXPECT_EQ(kMaxBsonObjectSize, 16777216u);
  EXPECT_EQ(kMaxWriteBatchSize, 100000u);
}

}  // namespace
}  // namespace quarry::wire
