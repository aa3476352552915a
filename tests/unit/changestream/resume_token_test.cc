// Resume tokens: the {_data} encoding drivers echo back, its 0x82+Timestamp prefix, stream order,
// and InvalidResumeToken for what this server did not write.
#include "changestream/resume_token.h"

#include <gtest/gtest.h>

#include "bson/builder.h"
#include "changestream_test_util.h"

namespace quarry::changestream {
namespace {

using testing::Json;

ResumeToken Event(storage::Timestamp ts, bool invalidate = false) {
  ResumeToken token;
  token.ts = ts;
  token.kind = ResumeToken::Kind::kEvent;
  token.from_invalidate = invalidate;
  token.uuid = testing::TestUuid(7);
  token.event_hash = 0x0123456789ABCDEFull;
  return token;
}

TEST(ResumeTokenTest, EventTokenRoundTripsThroughItsDocument) {
  ResumeToken token = Event(storage::MakeTimestamp(1700000000, 5));
  token.txn_op_index = 3;
  bson::Document doc = token.ToDocument();
  auto parsed =
      ParseResumeToken(bson::ValueView(bson::Type::kDocument, doc.bytes().data(), doc.size()));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().ts, token.ts);
  EXPECT_TRUE(parsed.value().is_event());
  EXPECT_EQ(parsed.value().txn_op_index, 3u);
  EXPECT_FALSE(parsed.value().from_invalidate);
  EXPECT_EQ(parsed.value().uuid, token.uuid);
  EXPECT_EQ(parsed.value().event_hash, token.event_hash);
}

TEST(ResumeTokenTest, HighWaterMarkRoundTrips) {
  ResumeToken token = ResumeToken::HighWaterMark(storage::MakeTimestamp(12, 34));
  auto parsed = ParseResumeTokenHex(token.ToHex());
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed.value().is_event());
  EXPECT_EQ(parsed.value().ts, token.ts);
}

TEST(ResumeTokenTest, DataStartsWith82AndTheBigEndianTimestampInUpperCaseHex) {
  ResumeToken token = Event(storage::MakeTimestamp(0x62408DAC, 0x1AB));
  std::string hex = token.ToHex();
  EXPECT_EQ(hex.substr(0, 18), "8262408DAC000001AB");
  EXPECT_EQ(hex.find_first_of("abcdef"), std::string::npos);
  bson::Document doc = token.ToDocument();
  EXPECT_EQ(doc.Get("_data").String(), hex);
}

TEST(ResumeTokenTest, StringOrderOfDataEqualsStreamOrder) {
  const storage::Timestamp t = storage::MakeTimestamp(100, 7);
  std::vector<ResumeToken> in_order = {ResumeToken::HighWaterMark(t - 1),
                                       Event(t - 1),
                                       Event(t - 1, true),
                                       ResumeToken::HighWaterMark(t),
                                       Event(t),
                                       Event(t, true),
                                       ResumeToken::HighWaterMark(t + 1),
                                       Event(storage::MakeTimestamp(101, 1))};
  for (std::size_t i = 0; i + 1 < in_order.size(); ++i) {
    EXPECT_LT(CompareResumeTokens(in_order[i], in_order[i + 1]), 0) << i;
    EXPECT_GT(CompareResumeTokens(in_order[i + 1], in_order[i]), 0) << i;
    EXPECT_LT(in_order[i].ToHex(), in_order[i + 1].ToHex()) << i;
  }
  EXPECT_EQ(CompareResumeTokens(Event(t), Event(t)), 0);
}

TEST(ResumeTokenTest, ForeignOrMalformedTokensAreInvalidResumeToken) {
  const char* bad[] = {
      R"({"x": "82"})",
      R"({"_data": 5})",
      R"({"_data": "8"})",
      R"({"_data": "ZZ"})",
      R"({"_data": "8100000001000000010100"})",                  // not a timestamp
      R"({"_data": "820000000100000001"})",                      // truncated
      R"({"_data": "82000000010000000101000000"})",              // HWM with trailing bytes
      R"({"_data": "82000000010000000102"})",                    // unknown kind
      R"({"_data": "8262408DAC000000012B022C0100296E5A1004"})",  // MongoDB's own format
      R"({"_data": "82000000010000000101", "extra": 1})",
  };
  for (const char* json : bad) {
    bson::Document doc = Json(json);
    auto parsed =
        ParseResumeToken(bson::ValueView(bson::Type::kDocument, doc.bytes().data(), doc.size()));
    ASSERT_FALSE(parsed.ok()) << json;
    EXPECT_EQ(parsed.status().code(), ErrorCode::kInvalidResumeToken) << json;
  }
  auto not_a_document = ParseResumeToken(bson::ValueView());
  EXPECT_EQ(not_a_document.status().code(), ErrorCode::kInvalidResumeToken);
}

TEST(ResumeTokenTest, TypeBitsFieldIsAccepted) {
  bson::DocumentBuilder b;
  b.AppendString("_data", ResumeToken::HighWaterMark(9).ToHex());
  b.AppendBinary("_typeBits", 0, "\x01");
  bson::Document doc = std::move(b).Finish();
  auto parsed =
      ParseResumeToken(bson::ValueView(bson::Type::kDocument, doc.bytes().data(), doc.size()));
  EXPECT_TRUE(parsed.ok());
}

}  // namespace
}  // namespace quarry::changestream
