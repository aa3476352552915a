// How the planner answers a read: a point lookup (IDHACK) only when the filter pins _id to one
// value, a collection scan otherwise, with the same results either way; the stage tree explain
// shows; and hints.
#include "exec/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "exec/plan_executor.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::DocumentIn;
using testing::Filter;
using testing::StringIn;

std::vector<std::string> Json(const std::vector<bson::Document>& docs) {
  std::vector<std::string> out;
  for (const bson::Document& doc : docs) out.push_back(doc.ToJson());
  return out;
}

bson::Document ExplainOf(const PlanStage& root) {
  bson::DocumentBuilder b;
  root.Explain(&b);
  return std::move(b).Finish();
}

class PlannerTest : public testing::ExecFixture {
 protected:
  void SetUp() override {
    ExecFixture::SetUp();
    InsertNumbered(10, 3);  // {_id: i, a: i % 3}
    Insert(Doc(R"({"_id": "x", "a": 1})"));
    Insert(Doc(R"({"_id": {"a": 1}, "a": 1})"));
    Insert(Doc(R"({"_id": {"x": 1}, "a": 2})"));
  }

  QuerySpec Spec(std::string_view filter, std::string_view sort = "{}", std::int64_t skip = 0,
                 std::int64_t limit = 0, std::string_view projection = "{}") {
    filter_ = Doc(filter);
    sort_ = Doc(sort);
    projection_ = Doc(projection);
    StatusWith<QuerySpec> spec = QuerySpec::Parse(filter_, {}, projection_, sort_, skip, limit);
    EXPECT_TRUE(spec.ok()) << spec.status().ToString();
    return std::move(spec).value();
  }

  std::unique_ptr<PlanStage> Plan(QuerySpec spec) {
    StatusWith<std::unique_ptr<PlanStage>> plan = PlanQuery(ctx_, collection_, std::move(spec));
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return plan.ok() ? std::move(plan).value() : nullptr;
  }

  // Runs `root` to the end.
  static std::vector<bson::Document> Results(PlanStage& root) {
    std::vector<bson::Document> docs;
    Status done = ForEachResult(root, [&](bson::DocumentView doc, const query::MatchDetails&) {
      docs.push_back(bson::Document::Copy(doc));
      return true;
    });
    EXPECT_TRUE(done.ok()) << done.ToString();
    return docs;
  }

  // What a scan that tests every stored document returns.
  std::vector<bson::Document> Reference(std::string_view filter) const {
    query::Matcher matcher = Filter(filter);
    std::vector<bson::Document> matches;
    for (bson::Document& doc : StoredDocuments()) {
      if (matcher.Matches(doc)) matches.push_back(std::move(doc));
    }
    return matches;
  }

  // The status of planning a find of everything with `hint` ({"hint": <value>}).
  Status PlanWithHint(std::string_view hint_holder) {
    hint_ = Doc(hint_holder);
    QuerySpec spec = Spec("{}");
    spec.hint = hint_.Get("hint");
    return PlanQuery(ctx_, collection_, std::move(spec)).status();
  }

  std::vector<std::string> IdsWithHint(std::string_view hint_holder) {
    hint_ = Doc(hint_holder);
    QuerySpec spec = Spec("{}");
    spec.hint = hint_.Get("hint");
    std::unique_ptr<PlanStage> plan = Plan(std::move(spec));
    std::vector<std::string> ids;
    if (plan == nullptr) return ids;
    for (const bson::Document& doc : Results(*plan)) ids.push_back(doc.Get("_id").ToJson());
    return ids;
  }

  bson::Document filter_, sort_, projection_, hint_;
};

TEST_F(PlannerTest, FilterPinningIdToOneValueIsAPointLookupWithTheScansResults) {
  for (const char* filter : {
           R"({"_id": 5})",
           R"({"_id": {"$eq": 5}})",
           R"({"$and": [{"_id": 5}, {"a": 2}]})",
           R"({"_id": {"$all": [5]}})",
           R"({"_id": "x"})",
           R"({"_id": 5.0})",
           R"({"_id": {"$numberLong": "5"}})",
       }) {
    SCOPED_TRACE(filter);
    std::unique_ptr<PlanStage> plan = Plan(Spec(filter));
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->name(), "IDHACK");
    EXPECT_EQ(PlanFilter(ctx_, collection_, Filter(filter)).value().root->name(), "IDHACK");
    std::vector<bson::Document> expected = Reference(filter);
    EXPECT_EQ(expected.size(), 1u);
    EXPECT_EQ(Json(Results(*plan)), Json(expected));
  }
}

TEST_F(PlannerTest, FilterThatCanMatchOtherIdsScansWithTheSameResults) {
  for (const char* filter : {
           R"({"_id": {"$regularExpression": {"pattern": "^x", "options": ""}}})",
           R"({"_id": {"$in": [1]}})",
           R"({"_id": null})",
           R"({"_id": [1]})",
           R"({"_id": {"a": 1}})",
           R"({"$or": [{"_id": 1}]})",
           R"({"_id.x": 1})",
           R"({"_id": {"$gte": 5}})",
           R"({"_id": {"$not": {"$eq": 5}}})",
           R"({"_id": {"$minKey": 1}})",
       }) {
    SCOPED_TRACE(filter);
    std::unique_ptr<PlanStage> plan = Plan(Spec(filter));
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->name(), "COLLSCAN");
    EXPECT_EQ(PlanFilter(ctx_, collection_, Filter(filter)).value().root->name(), "COLLSCAN");
    EXPECT_EQ(Json(Results(*plan)), Json(Reference(filter)));
  }
}

TEST_F(PlannerTest, PointLookupStillAppliesTheRestOfTheFilter) {
  for (const char* filter : {R"({"_id": 5, "a": 1})", R"({"_id": {"$all": [5, 6]}})",
                             R"({"$and": [{"_id": 5}, {"_id": {"$gt": 7}}]})"}) {
    SCOPED_TRACE(filter);
    ASSERT_TRUE(Reference(filter).empty());
    std::unique_ptr<PlanStage> plan = Plan(Spec(filter));
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(plan->name(), "IDHACK");
    EXPECT_TRUE(Results(*plan).empty());
    bson::Document explain = ExplainOf(*plan);
    EXPECT_EQ(explain.Get("docsExamined").AsInt64(), 1);
    EXPECT_EQ(explain.Get("nReturned").AsInt64(), 0);
  }
}

TEST_F(PlannerTest, PointLookupOfAMissingIdExaminesNothing) {
  std::unique_ptr<PlanStage> plan = Plan(Spec(R"({"_id": 42})"));
  ASSERT_NE(plan, nullptr);
  EXPECT_TRUE(Results(*plan).empty());
  bson::Document explain = ExplainOf(*plan);
  EXPECT_EQ(StringIn(explain.Get("stage")), "IDHACK");
  EXPECT_EQ(explain.Get("docsExamined").AsInt64(), 0);
  EXPECT_EQ(DocumentIn(explain.Get("filter")).ToJson(), Doc(R"({"_id": 42})").ToJson());
}

TEST_F(PlannerTest, ExplainShowsEveryStageWithItsCounts) {
  const char* filter = R"({"a": 1})";
  const std::int64_t skip = 1;
  const std::int64_t limit = 2;
  std::unique_ptr<PlanStage> plan =
      Plan(Spec(filter, R"({"a": 1, "_id": -1})", skip, limit, R"({"a": 1})"));
  ASSERT_NE(plan, nullptr);
  const std::vector<bson::Document> returned = Results(*plan);
  const auto matches = static_cast<std::int64_t>(Reference(filter).size());
  ASSERT_GT(matches, skip + limit);
  EXPECT_EQ(static_cast<std::int64_t>(returned.size()), limit);

  bson::Document explain = ExplainOf(*plan);
  bson::DocumentView projection = explain.view();
  EXPECT_EQ(StringIn(projection.Get("stage")), "PROJECTION_DEFAULT");
  EXPECT_EQ(projection.Get("nReturned").AsInt64(), limit);
  bson::DocumentView limit_stage = DocumentIn(projection.Get("inputStage"));
  EXPECT_EQ(StringIn(limit_stage.Get("stage")), "LIMIT");
  EXPECT_EQ(limit_stage.Get("limitAmount").AsInt64(), limit);
  EXPECT_EQ(limit_stage.Get("nReturned").AsInt64(), limit);
  bson::DocumentView skip_stage = DocumentIn(limit_stage.Get("inputStage"));
  EXPECT_EQ(StringIn(skip_stage.Get("stage")), "SKIP");
  EXPECT_EQ(skip_stage.Get("skipAmount").AsInt64(), skip);
  EXPECT_EQ(skip_stage.Get("nReturned").AsInt64(), limit);
  bson::DocumentView sort = DocumentIn(skip_stage.Get("inputStage"));
  EXPECT_EQ(StringIn(sort.Get("stage")), "SORT");
  EXPECT_EQ(DocumentIn(sort.Get("sortPattern")).ToJson(), Doc(R"({"a": 1, "_id": -1})").ToJson());
  EXPECT_EQ(sort.Get("limitAmount").AsInt64(), skip + limit);  // a top-k sort keeps no more
  EXPECT_EQ(sort.Get("nReturned").AsInt64(), skip + limit);
  bson::DocumentView scan = DocumentIn(sort.Get("inputStage"));
  EXPECT_EQ(StringIn(scan.Get("stage")), "COLLSCAN");
  EXPECT_EQ(DocumentIn(scan.Get("filter")).ToJson(), Doc(filter).ToJson());
  EXPECT_EQ(StringIn(scan.Get("direction")), "forward");
  EXPECT_EQ(scan.Get("nReturned").AsInt64(), matches);
  EXPECT_EQ(scan.Get("docsExamined").AsInt64(),
            static_cast<std::int64_t>(StoredDocuments().size()));
  EXPECT_FALSE(scan.Has("inputStage"));
}

// Records are clustered by _id, so their order serves as the _id index.
TEST_F(PlannerTest, ASortOnIdAloneReadsRecordsInThatOrderWithoutASort) {
  std::unique_ptr<PlanStage> plan = Plan(Spec("{}", R"({"_id": -1})", 0, 2));
  ASSERT_NE(plan, nullptr);
  const std::vector<bson::Document> returned = Results(*plan);
  std::vector<bson::Document> expected = StoredDocuments();
  std::reverse(expected.begin(), expected.end());
  expected.resize(2);
  EXPECT_EQ(Json(returned), Json(expected));
  bson::Document explain = ExplainOf(*plan);
  EXPECT_EQ(StringIn(explain.Get("stage")), "LIMIT");
  bson::DocumentView scan = DocumentIn(explain.Get("inputStage"));
  EXPECT_EQ(StringIn(scan.Get("stage")), "COLLSCAN");
  EXPECT_EQ(StringIn(scan.Get("direction")), "backward");
  EXPECT_EQ(scan.Get("docsExamined").AsInt64(), 2);
}

TEST_F(PlannerTest, BoundsOnIdLimitTheScanToTheirRanges) {
  for (const char* sort : {"{}", R"({"_id": 1})", R"({"_id": -1})"}) {
    SCOPED_TRACE(sort);
    const char* filter = R"({"_id": {"$in": [2, 5, 7, "x"]}, "a": {"$ne": 0}})";
    std::unique_ptr<PlanStage> plan = Plan(Spec(filter, sort));
    ASSERT_NE(plan, nullptr);
    std::vector<std::string> expected = Json(Reference(filter));
    if (std::string_view(sort) == R"({"_id": -1})") std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(Json(Results(*plan)), expected);
    bson::Document explain = ExplainOf(*plan);
    EXPECT_EQ(StringIn(explain.Get("stage")), "COLLSCAN");
    EXPECT_EQ(DocumentIn(explain.Get("indexBounds")).ToJson(),
              Doc(R"({"_id": ["[2, 2]", "[5, 5]", "[7, 7]", "[\"x\", \"x\"]"]})").ToJson());
    // Each range reads its record and the one after it, which ends the range.
    EXPECT_LE(explain.Get("docsExamined").AsInt64(), 8);
  }
  std::unique_ptr<PlanStage> range = Plan(Spec(R"({"_id": {"$gte": 3, "$lt": 6}})"));
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(Json(Results(*range)), Json(Reference(R"({"_id": {"$gte": 3, "$lt": 6}})")));
  EXPECT_EQ(ExplainOf(*range).Get("docsExamined").AsInt64(), 4);
}

TEST_F(PlannerTest, AnOrWhoseEveryBranchBoundsIdReadsOnlyTheirRanges) {
  for (const char* sort : {"{}", R"({"_id": 1})", R"({"_id": -1})"}) {
    SCOPED_TRACE(sort);
    const char* filter =
        R"({"$or": [{"_id": {"$lte": 1}}, {"_id": {"$gte": 8}, "a": 2}, {"_id": "x"}]})";
    std::unique_ptr<PlanStage> plan = Plan(Spec(filter, sort));
    ASSERT_NE(plan, nullptr);
    std::vector<std::string> expected = Json(Reference(filter));
    ASSERT_EQ(expected.size(), 4u);  // 0, 1, 8 and "x"
    if (std::string_view(sort) == R"({"_id": -1})") std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(Json(Results(*plan)), expected);
    bson::Document explain = ExplainOf(*plan);
    EXPECT_EQ(StringIn(explain.Get("stage")), "COLLSCAN");
    EXPECT_EQ(DocumentIn(explain.Get("indexBounds")).ToJson(),
              Doc(R"({"_id": ["[-inf.0, 1]", "[8, inf.0]", "[\"x\", \"x\"]"]})").ToJson());
    // 0, 1, 8, 9, "x", and at most one record past each range.
    EXPECT_LE(explain.Get("docsExamined").AsInt64(), 8);
  }
  // Overlapping branches read their union once: every match is returned once.
  const char* overlapping = R"({"$or": [{"_id": {"$lt": 5}}, {"_id": {"$gt": 2, "$lt": 7}}]})";
  std::unique_ptr<PlanStage> plan = Plan(Spec(overlapping));
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(Json(Results(*plan)), Json(Reference(overlapping)));
  EXPECT_LE(ExplainOf(*plan).Get("docsExamined").AsInt64(), 8);
  // A branch that does not bound _id leaves the whole collection to read.
  const char* unbounded = R"({"$or": [{"_id": 1}, {"a": 2}]})";
  plan = Plan(Spec(unbounded));
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(Json(Results(*plan)), Json(Reference(unbounded)));
  EXPECT_EQ(ExplainOf(*plan).Get("docsExamined").AsInt64(),
            static_cast<std::int64_t>(StoredDocuments().size()));
}

TEST_F(PlannerTest, IdBoundsThatHoldNoKeyReadNothing) {
  for (const char* filter : {R"({"_id": {"$gt": 5, "$lt": 3}})", R"({"_id": {"$in": []}})",
                             R"({"$or": [{"_id": {"$gt": 5, "$lt": 3}}, {"_id": {"$in": []}}]})"}) {
    SCOPED_TRACE(filter);
    std::unique_ptr<PlanStage> plan = Plan(Spec(filter));
    ASSERT_NE(plan, nullptr);
    EXPECT_TRUE(Results(*plan).empty());
    bson::Document explain = ExplainOf(*plan);
    EXPECT_EQ(StringIn(explain.Get("stage")), "COLLSCAN");
    EXPECT_EQ(explain.Get("docsExamined").AsInt64(), 0);
  }
}

TEST_F(PlannerTest, ExplainOfAPointLookupShowsOneDocumentExamined) {
  std::unique_ptr<PlanStage> plan = Plan(Spec(R"({"_id": 3})"));
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(Results(*plan).size(), 1u);
  bson::Document explain = ExplainOf(*plan);
  EXPECT_EQ(StringIn(explain.Get("stage")), "IDHACK");
  EXPECT_EQ(explain.Get("nReturned").AsInt64(), 1);
  EXPECT_EQ(explain.Get("docsExamined").AsInt64(), 1);
  EXPECT_FALSE(explain.view().Has("inputStage"));
}

TEST_F(PlannerTest, HintToTheIdIndexByNameOrKeyPatternKeepsTheResults) {
  const std::vector<std::string> unhinted = IdsWithHint(R"({})");
  ASSERT_EQ(unhinted.size(), StoredDocuments().size());
  EXPECT_EQ(IdsWithHint(R"({"hint": "_id_"})"), unhinted);
  EXPECT_EQ(IdsWithHint(R"({"hint": {"_id": 1}})"), unhinted);
  EXPECT_EQ(IdsWithHint(R"({"hint": {}})"), unhinted);
}

TEST_F(PlannerTest, NaturalHintChoosesTheScanDirection) {
  std::vector<std::string> forward = IdsWithHint(R"({"hint": {"$natural": 1}})");
  ASSERT_EQ(forward.size(), StoredDocuments().size());
  std::vector<std::string> backward(forward.rbegin(), forward.rend());
  EXPECT_EQ(IdsWithHint(R"({"hint": {"$natural": -1}})"), backward);
  EXPECT_EQ(PlanWithHint(R"({"hint": {"$natural": 2}})").code(), ErrorCode::kBadValue);
  for (const auto& [hint, natural] : {std::pair{R"({"hint": {"$natural": -1}})", -1},
                                      std::pair{R"({"hint": {"$natural": 1}})", 1},
                                      std::pair{R"({"hint": "_id_"})", 0}, std::pair{R"({})", 0}}) {
    SCOPED_TRACE(hint);
    hint_ = Doc(hint);
    StatusWith<ResolvedHint> resolved = ResolveHint(collection_, hint_.Get("hint"));
    ASSERT_TRUE(resolved.ok());
    EXPECT_EQ(resolved.value().natural, natural);
    EXPECT_EQ(resolved.value().index, nullptr);
  }
}

TEST_F(PlannerTest, HintNamingNoIndexFailsWithBadValue) {
  for (const char* hint :
       {R"({"hint": "a_1"})", R"({"hint": {"a": 1}})", R"({"hint": {"_id": -1}})"}) {
    SCOPED_TRACE(hint);
    Status planned = PlanWithHint(hint);
    EXPECT_EQ(planned.code(), ErrorCode::kBadValue);
    EXPECT_EQ(planned.reason(), "hint provided does not correspond to an existing index");
    hint_ = Doc(hint);
    EXPECT_EQ(ResolveHint(collection_, hint_.Get("hint")).status().code(), ErrorCode::kBadValue);
  }
  EXPECT_EQ(PlanWithHint(R"({"hint": 5})").code(), ErrorCode::kFailedToParse);
}

TEST_F(PlannerTest, HintToASecondaryIndexReturnsEveryDocument) {
  AddIndexSpec(R"({"v": 2, "key": {"a": 1}, "name": "a_1"})");
  const std::size_t stored = StoredDocuments().size();
  EXPECT_EQ(IdsWithHint(R"({"hint": "a_1"})").size(), stored);
  EXPECT_EQ(IdsWithHint(R"({"hint": {"a": 1}})").size(), stored);
}

TEST_F(PlannerTest, HintToAHiddenIndexFailsAsIfItDidNotExist) {
  AddIndexSpec(R"({"v": 2, "key": {"a": 1}, "name": "a_1", "hidden": true})");
  EXPECT_EQ(PlanWithHint(R"({"hint": "a_1"})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(PlanWithHint(R"({"hint": {"a": 1}})").code(), ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::exec
