// The reply envelope: ok, the error fields, write concern errors, labels, and the cluster time
// a replica-set member gossips.
#include "server/reply_builder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/validate.h"
#include "commands/cursor_reply.h"
#include "server_test_util.h"

namespace quarry::server {
namespace {

using testing::Doc;
using testing::NumberAt;

bson::Document Labels(std::vector<std::string_view> labels) {
  bson::ArrayBuilder b;
  for (std::string_view label : labels) b.AppendString(label);
  return std::move(b).Finish();
}

class ReplyBuilderTest : public ::testing::Test {
 protected:
  commands::ServiceState state_;
};

TEST_F(ReplyBuilderTest, SuccessReplyKeepsTheBodyAndEndsWithOkOne) {
  bson::Document reply = FinishSuccessReply(state_, Doc(R"({"n": 3, "ok": 0})"), std::nullopt);

  EXPECT_EQ(NumberAt(reply, "n"), 3);
  EXPECT_EQ(reply.Get("ok").type(), bson::Type::kDouble);
  EXPECT_EQ(NumberAt(reply, "ok"), 1);
  EXPECT_EQ(reply.view().CountElements(), 2u) << reply.ToJson();
}

// A getMore of GridFS chunks replies with up to 16 MiB: the reply must not copy it again.
TEST_F(ReplyBuilderTest, CursorReplyIsFinishedInPlaceWithoutCopyingTheBatch) {
  state_.config.repl_set = "rs0";
  state_.cluster_time = [] { return std::uint64_t{1700000000} << 32; };
  query::Batch batch;
  for (int chunk = 0; chunk < 4; ++chunk) {
    bson::DocumentBuilder b;
    b.AppendInt32("n", chunk).AppendBinary("data", 0, std::string(255 * 1024, 'x'));
    batch.documents.push_back(std::move(b).Finish());
    batch.bytes += batch.documents.back().size();
  }
  bson::Document body = commands::BuildCursorReply("nextBatch", batch, 42, "db.fs.chunks");
  const char* batch_bytes = body.bytes().data();

  bson::Document reply = FinishSuccessReply(state_, std::move(body), std::nullopt);

  EXPECT_EQ(reply.bytes().data(), batch_bytes);
  ASSERT_TRUE(bson::Validate(reply.bytes().data(), reply.size()).ok());
  EXPECT_EQ(NumberAt(reply, "cursor.nextBatch.3.n"), 3);
  EXPECT_EQ(NumberAt(reply, "cursor.id"), 42);
  EXPECT_EQ(NumberAt(reply, "ok"), 1);
  EXPECT_TRUE(reply.view().Has("operationTime")) << reply.ToJson().substr(0, 200);
}

TEST_F(ReplyBuilderTest, UnsatisfiedWriteConcernBecomesWriteConcernError) {
  Status unsatisfiable(ErrorCode::kUnsatisfiableWriteConcern, "Not enough data-bearing nodes");

  bson::Document reply = FinishSuccessReply(state_, Doc(R"({"n": 1})"), unsatisfiable);

  EXPECT_EQ(NumberAt(reply, "ok"), 1);
  EXPECT_EQ(NumberAt(reply, "writeConcernError.code"),
            static_cast<std::int64_t>(ErrorCode::kUnsatisfiableWriteConcern));
  EXPECT_EQ(bson::GetPath(reply, "writeConcernError.codeName").String(),
            ErrorCodeName(ErrorCode::kUnsatisfiableWriteConcern));
  EXPECT_EQ(bson::GetPath(reply, "writeConcernError.errmsg").String(), unsatisfiable.reason());
  EXPECT_EQ(bson::GetPath(reply, "writeConcernError.errInfo").type(), bson::Type::kDocument);
}

TEST_F(ReplyBuilderTest, GivenWriteConcernErrorDocumentGoesOutAsIs) {
  bson::Document given = Doc(R"({"code": 64, "errmsg": "timed out", "errInfo": {"w": 2}})");

  bson::Document reply = FinishSuccessReply(state_, Doc("{}"), std::nullopt, given);

  ASSERT_EQ(reply.Get("writeConcernError").type(), bson::Type::kDocument) << reply.ToJson();
  EXPECT_EQ(reply.Get("writeConcernError").Document().bytes(), given.view().bytes());
}

TEST_F(ReplyBuilderTest, LabelsGoInErrorLabelsUnlessEmpty) {
  bson::Document labelled =
      FinishSuccessReply(state_, Doc("{}"), std::nullopt, std::nullopt, Labels({"A"}));
  bson::Document unlabelled =
      FinishSuccessReply(state_, Doc("{}"), std::nullopt, std::nullopt, Labels({}));

  EXPECT_EQ(testing::Strings(labelled, "errorLabels"), std::vector<std::string>{"A"});
  EXPECT_FALSE(unlabelled.view().Has("errorLabels")) << unlabelled.ToJson();
}

TEST_F(ReplyBuilderTest, ErrorReplyHasOkZeroErrmsgCodeAndCodeName) {
  bson::Document reply =
      BuildErrorReply(state_, Status(ErrorCode::kCursorNotFound, "cursor id 7 not found"));

  EXPECT_EQ(NumberAt(reply, "ok"), 0);
  EXPECT_EQ(reply.Get("errmsg").String(), "cursor id 7 not found");
  EXPECT_EQ(reply.Get("code").type(), bson::Type::kInt32);
  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(ErrorCode::kCursorNotFound));
  EXPECT_EQ(reply.Get("codeName").String(), ErrorCodeName(ErrorCode::kCursorNotFound));
}

TEST_F(ReplyBuilderTest, ErrorExtraInfoGoesAtTheTopLevelWithoutOverridingTheErrorFields) {
  Status status =
      Status(ErrorCode::kDuplicateKey, "E11000 duplicate key")
          .WithExtraInfo(Doc(R"({"keyValue": {"_id": 1}, "code": 1, "ok": 1})").bytes());

  bson::Document reply = BuildErrorReply(state_, status, Labels({"L"}));

  EXPECT_EQ(NumberAt(reply, "keyValue._id"), 1) << reply.ToJson();
  EXPECT_EQ(NumberAt(reply, "code"), static_cast<std::int64_t>(ErrorCode::kDuplicateKey));
  EXPECT_EQ(NumberAt(reply, "ok"), 0);
  EXPECT_EQ(testing::Strings(reply, "errorLabels"), std::vector<std::string>{"L"});
}

TEST_F(ReplyBuilderTest, ReplicaSetMemberGossipsItsClusterTime) {
  state_.config.repl_set = "rs0";
  const std::uint64_t now = (std::uint64_t{1700000000} << 32) | 5;
  state_.cluster_time = [now] { return now; };

  bson::Document ok = FinishSuccessReply(state_, Doc("{}"), std::nullopt);
  bson::Document error = BuildErrorReply(state_, Status(ErrorCode::kBadValue, "bad"));

  for (const bson::Document& reply : {ok, error}) {
    ASSERT_EQ(bson::GetPath(reply, "$clusterTime.clusterTime").type(), bson::Type::kTimestamp)
        << reply.ToJson();
    EXPECT_EQ(bson::GetPath(reply, "$clusterTime.clusterTime").Timestamp(), now);
    EXPECT_EQ(bson::GetPath(reply, "$clusterTime.signature.keyId").type(), bson::Type::kInt64);
    ASSERT_EQ(reply.Get("operationTime").type(), bson::Type::kTimestamp) << reply.ToJson();
    EXPECT_EQ(reply.Get("operationTime").Timestamp(), now);
  }
}

TEST_F(ReplyBuilderTest, StandaloneSendsNoClusterTime) {
  state_.config.repl_set.clear();
  state_.cluster_time = [] { return std::uint64_t{1} << 32; };

  bson::Document reply = FinishSuccessReply(state_, Doc("{}"), std::nullopt);

  EXPECT_FALSE(reply.view().Has("$clusterTime")) << reply.ToJson();
  EXPECT_FALSE(reply.view().Has("operationTime")) << reply.ToJson();
}

}  // namespace
}  // namespace quarry::server
