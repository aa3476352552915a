// writeConcern on a one-member replica set: what each form asks of a write, which forms can
// never be satisfied (reported after the write), and which are refused.
#include "server/write_concern.h"

#include <gtest/gtest.h>

#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::Doc;
using testing::NumberAt;

// ParseWriteConcern of the `writeConcern` field of `json`.
StatusWith<ParsedWriteConcern> Parse(std::string_view json) {
  bson::Document holder = Doc(json);
  StatusWith<ParsedWriteConcern> parsed = ParseWriteConcern(holder.Get("writeConcern"));
  return parsed;
}

TEST(WriteConcernTest, AbsentOrNullIsTheDefaultAcknowledgedWrite) {
  for (std::string_view json : {R"({})", R"({"writeConcern": null})"}) {
    StatusWith<ParsedWriteConcern> parsed = Parse(json);
    ASSERT_TRUE(parsed.ok()) << json;
    EXPECT_FALSE(parsed.value().concern.unacknowledged) << json;
    EXPECT_FALSE(parsed.value().concern.journal) << json;
    EXPECT_FALSE(parsed.value().concern.explicitly_set) << json;
    EXPECT_FALSE(parsed.value().unsatisfiable.has_value()) << json;
  }
}

TEST(WriteConcernTest, WZeroIsUnacknowledged) {
  StatusWith<ParsedWriteConcern> parsed = Parse(R"({"writeConcern": {"w": 0}})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed.value().concern.unacknowledged);
  EXPECT_TRUE(parsed.value().concern.explicitly_set);
}

TEST(WriteConcernTest, WOneIsAcknowledgedWithoutJournal) {
  StatusWith<ParsedWriteConcern> parsed = Parse(R"({"writeConcern": {"w": 1}})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed.value().concern.unacknowledged);
  EXPECT_FALSE(parsed.value().concern.journal);
  EXPECT_FALSE(parsed.value().unsatisfiable.has_value());
}

TEST(WriteConcernTest, MajorityAndJTrueWaitForTheJournal) {
  for (std::string_view json :
       {R"({"writeConcern": {"w": "majority"}})", R"({"writeConcern": {"j": true}})",
        R"({"writeConcern": {"w": 1, "fsync": true}})"}) {
    StatusWith<ParsedWriteConcern> parsed = Parse(json);
    ASSERT_TRUE(parsed.ok()) << json;
    EXPECT_TRUE(parsed.value().concern.journal) << json;
    EXPECT_FALSE(parsed.value().concern.unacknowledged) << json;
    EXPECT_FALSE(parsed.value().unsatisfiable.has_value()) << json;
  }
}

TEST(WriteConcernTest, WZeroWithJTrueIsAcknowledged) {
  StatusWith<ParsedWriteConcern> parsed = Parse(R"({"writeConcern": {"w": 0, "j": true}})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed.value().concern.unacknowledged);
  EXPECT_TRUE(parsed.value().concern.journal);
}

TEST(WriteConcernTest, TimeoutsAreAccepted) {
  EXPECT_TRUE(Parse(R"({"writeConcern": {"w": "majority", "wtimeout": 1000}})").ok());
  EXPECT_TRUE(Parse(R"({"writeConcern": {"w": 1, "wtimeoutMS": 1000}})").ok());
}

TEST(WriteConcernTest, MoreMembersThanOneCanNeverBeSatisfied) {
  StatusWith<ParsedWriteConcern> parsed = Parse(R"({"writeConcern": {"w": 2}})");
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(parsed.value().unsatisfiable.has_value());
  EXPECT_EQ(parsed.value().unsatisfiable->code(), ErrorCode::kUnsatisfiableWriteConcern);
}

TEST(WriteConcernTest, UnknownTagCanNeverBeSatisfied) {
  StatusWith<ParsedWriteConcern> parsed = Parse(R"({"writeConcern": {"w": "eastCoast"}})");
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(parsed.value().unsatisfiable.has_value());
  EXPECT_EQ(parsed.value().unsatisfiable->code(), ErrorCode::kUnknownReplWriteConcern);
  EXPECT_NE(parsed.value().unsatisfiable->reason().find("eastCoast"), std::string_view::npos);
}

TEST(WriteConcernTest, MalformedWriteConcernsAreRefused) {
  struct Case {
    std::string_view json;
    ErrorCode code;
  };
  for (const Case& c : {Case{R"({"writeConcern": "majority"})", ErrorCode::kTypeMismatch},
                        Case{R"({"writeConcern": {"w": -1}})", ErrorCode::kFailedToParse},
                        Case{R"({"writeConcern": {"w": true}})", ErrorCode::kFailedToParse},
                        Case{R"({"writeConcern": {"j": "yes"}})", ErrorCode::kTypeMismatch},
                        Case{R"({"writeConcern": {"fsync": "yes"}})", ErrorCode::kTypeMismatch},
                        Case{R"({"writeConcern": {"w": 1, "x": 1}})", ErrorCode::kFailedToParse}}) {
    StatusWith<ParsedWriteConcern> parsed = Parse(c.json);
    ASSERT_FALSE(parsed.ok()) << c.json;
    EXPECT_EQ(parsed.status().code(), c.code) << c.json << ": " << parsed.status().ToString();
  }
}

class WriteConcernDispatchTest : public testing::ServerFixture {};

TEST_F(WriteConcernDispatchTest, UnsatisfiableWIsReportedAfterTheWriteIsApplied) {
  bson::Document reply =
      Run(R"({"insert": "c", "documents": [{"_id": 1}], "writeConcern": {"w": 2}})");

  EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  EXPECT_EQ(NumberAt(reply, "n"), 1);
  EXPECT_EQ(NumberAt(reply, "writeConcernError.code"),
            static_cast<std::int64_t>(ErrorCode::kUnsatisfiableWriteConcern));
  ASSERT_EQ(bson::GetPath(reply, "writeConcernError.codeName").type(), bson::Type::kString);
  EXPECT_EQ(bson::GetPath(reply, "writeConcernError.codeName").String(),
            ErrorCodeName(ErrorCode::kUnsatisfiableWriteConcern));
  EXPECT_EQ(CountDocs("c"), 1);
}

TEST_F(WriteConcernDispatchTest, UnsatisfiableWOnAReadIsNotReported) {
  bson::Document reply = Run(R"({"count": "c", "writeConcern": {"w": 2}})");

  EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  EXPECT_FALSE(reply.view().Has("writeConcernError")) << reply.ToJson();
}

TEST_F(WriteConcernDispatchTest, MalformedWriteConcernFailsTheCommandBeforeItWrites) {
  bson::Document reply = Run(
      R"({"insert": "c", "documents": [{"_id": 1}],
          "writeConcern": {"w": "majority", "j": "no"}})");

  EXPECT_EQ(NumberAt(reply, "ok"), 0) << reply.ToJson();
  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(ErrorCode::kTypeMismatch));
  EXPECT_EQ(CountDocs("c"), 0);
}

TEST_F(WriteConcernDispatchTest, MajorityWriteSyncsTheJournalBeforeReplying) {
  ASSERT_EQ(NumberAt(Run(R"({"create": "c"})"), "ok"), 1);
  const std::uint64_t syncs_before = engine_->stats().journal_syncs;

  bson::Document reply =
      Run(R"({"insert": "c", "documents": [{"_id": 1}], "writeConcern": {"w": "majority"}})");

  EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  EXPECT_FALSE(reply.view().Has("writeConcernError")) << reply.ToJson();
  EXPECT_GT(engine_->stats().journal_syncs, syncs_before);
}

TEST_F(WriteConcernDispatchTest, WOneWriteDoesNotWaitForTheJournal) {
  ASSERT_EQ(NumberAt(Run(R"({"create": "c"})"), "ok"), 1);
  const std::uint64_t syncs_before = engine_->stats().journal_syncs;

  bson::Document reply =
      Run(R"({"insert": "c", "documents": [{"_id": 1}], "writeConcern": {"w": 1}})");

  EXPECT_EQ(NumberAt(reply, "ok"), 1) << reply.ToJson();
  EXPECT_EQ(engine_->stats().journal_syncs, syncs_before);
}

}  // namespace
}  // namespace quarry::server
