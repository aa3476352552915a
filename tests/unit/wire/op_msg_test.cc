// ParseRequest on OP_MSG: sections, flags, checksum and mongod's section rules.
#include <gtest/gtest.h>

#include "base/endian.h"
#include "wire/client_messages.h"
#include "wire/request.h"
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
  std::string message = BuildOpMsgRequest(3, body, {{"documents", {a, b}}, {"updates", {u}}});
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
  std::string sections =
      Kind0(Json(R"({"insert": "c", "documents": []})")) + Kind1("documents", {Json("{}")});
  Status s = Parse(Frame(MsgOp(), MsgBody(0, sections)));
  EXPECT_EQ(s.code(), ErrorCode::kLocation40433);
  EXPECT_FALSE(IsInCategory(s.code(), kCloseConnection));
}

TEST(OpMsgParseTest, ThirdSequenceIsTooManyDocumentSequences) {
  std::string sections =
      Kind0(Json(R"({"x": 1})")) + Kind1("a", {}) + Kind1("b", {}) + Kind1("c", {});
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
  ASSERT_TRUE(
      Parse(BuildOpMsgRequest(1, Json(R"({"a": 1})"), {}, 1u << 20 | 1u << 31), &request).ok());
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
  std::string message =
      BuildOpMsgRequest(9, body, {{"documents", {Json(R"({"a": 1})")}}}, kChecksumPresent);
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
  EXPECT_EQ(ParseCode(Frame(MsgOp(), MsgBody(kChecksumPresent, "ab"))), ErrorCode::kProtocolError);
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
  EXPECT_EQ(ParseCode(with_sequence(4, "")), ErrorCode::kProtocolError);          // no identifier
  EXPECT_EQ(ParseCode(with_sequence(-1, "x")), ErrorCode::kProtocolError);        // negative
  EXPECT_EQ(ParseCode(with_sequence(100, "docs\0")), ErrorCode::kProtocolError);  // overruns
  EXPECT_EQ(ParseCode(with_sequence(8, "docs")), ErrorCode::kProtocolError);      // no NUL
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

}  // namespace
}  // namespace quarry::wire
