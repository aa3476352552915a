// The one-pass path for top-level $set/$unset/$inc/$mul gives exactly the document the value
// tree gives, and declines what it cannot decide.
#include <gtest/gtest.h>

#include "query/update/update_internal.h"
#include "update/update_test_util.h"

namespace quarry::query::update_internal {
namespace {

using testing::Doc;

std::shared_ptr<ModifierUpdate> Modifiers(std::string_view update_json) {
  StatusWith<std::shared_ptr<ModifierUpdate>> parsed =
      ParseModifiers(Doc(update_json), UpdateOptions{});
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? parsed.value() : nullptr;
}

bson::Document ThroughTree(const ModifierUpdate& update, const bson::Document& doc) {
  MutableValue root = MutableValue::OfDocument(doc);
  ApplyState state;
  MatchDetails details;
  state.details = &details;
  state.original = doc;
  EXPECT_TRUE(ApplyModifiers(update, &root, state).ok());
  return root.ToDocument();
}

// Both paths turn `doc_json` into the same bytes.
::testing::AssertionResult SameAsTree(std::string_view update_json, std::string_view doc_json) {
  std::shared_ptr<ModifierUpdate> update = Modifiers(update_json);
  std::optional<TopLevelUpdate> plan = PlanTopLevelUpdate(*update);
  if (!plan.has_value()) return ::testing::AssertionFailure() << update_json << " has no plan";
  const bson::Document doc = Doc(doc_json);
  std::optional<bson::Document> fast = ApplyTopLevelUpdate(*plan, doc);
  if (!fast.has_value()) return ::testing::AssertionFailure() << update_json << " declined";
  const bson::Document tree = ThroughTree(*update, doc);
  if (fast->bytes() != tree.bytes()) {
    return ::testing::AssertionFailure() << update_json << " on " << doc_json << " gave "
                                         << fast->ToJson() << ", the tree " << tree.ToJson();
  }
  return ::testing::AssertionSuccess();
}

bool HasPlan(std::string_view update_json) {
  return PlanTopLevelUpdate(*Modifiers(update_json)).has_value();
}

TEST(TopLevelUpdateTest, MatchesTheTreeForEachOperator) {
  const char* doc = R"({"_id": 1, "a": 1, "b": "x", "c": {"d": 2}, "e": [1, 2], "f": 2.5})";
  for (const char* update : {
           R"({"%set": {"b": "y"}})",
           R"({"%set": {"c": 7, "a": {"n": [1]}}})",
           R"({"%set": {"z": 1, "g": 2, "b": null}})",
           R"({"%unset": {"a": "", "missing": ""}})",
           R"({"%inc": {"a": 2, "f": 1, "new": {"$numberLong": "5"}}})",
           R"({"%mul": {"a": 3, "f": 2, "absent": 2.0, "absent_long": {"$numberLong": "4"}}})",
           R"({"%set": {"b": "x"}, "%inc": {"a": 0}})",
           R"({"%set": {"k": 1}, "%unset": {"c": ""}, "%inc": {"a": 1}, "%mul": {"f": 0}})",
       }) {
    EXPECT_TRUE(SameAsTree(update, doc));
  }
}

TEST(TopLevelUpdateTest, MatchesTheTreeOnEdgeDocuments) {
  EXPECT_TRUE(SameAsTree(R"({"%set": {"a": 1}})", R"({})"));
  EXPECT_TRUE(SameAsTree(R"({"%unset": {"a": ""}})", R"({"a": 1})"));
  // A repeated name: only its first field changes, as on the tree.
  EXPECT_TRUE(SameAsTree(R"({"%set": {"a": 9}})", R"({"_id": 1, "a": 1, "a": 2})"));
  EXPECT_TRUE(SameAsTree(R"({"%unset": {"a": ""}})", R"({"_id": 1, "a": 1, "b": 0, "a": 2})"));
  EXPECT_TRUE(SameAsTree(R"({"%inc": {"n": 1}})", R"({"n": {"$numberInt": "2147483647"}})"));
}

TEST(TopLevelUpdateTest, LeavesPathsArraysAndIdToTheTree) {
  EXPECT_TRUE(HasPlan(R"({"%set": {"a": 1}, "%inc": {"b": 1}})"));
  EXPECT_FALSE(HasPlan(R"({"%set": {"a.b": 1}})"));
  EXPECT_FALSE(HasPlan(R"({"%set": {"_id": 1}})"));
  EXPECT_FALSE(HasPlan(R"({"%push": {"a": 1}})"));
  EXPECT_FALSE(HasPlan(R"({"%rename": {"a": "b"}})"));
  EXPECT_FALSE(HasPlan(R"({"%min": {"a": 1}})"));
  EXPECT_FALSE(HasPlan(R"({"%currentDate": {"a": true}})"));
  EXPECT_FALSE(HasPlan(R"({"%setOnInsert": {"a": 1}})"));
}

TEST(TopLevelUpdateTest, DeclinesArithmeticItCannotDecide) {
  std::shared_ptr<ModifierUpdate> update = Modifiers(R"({"%inc": {"a": 1}})");
  std::optional<TopLevelUpdate> plan = PlanTopLevelUpdate(*update);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(ApplyTopLevelUpdate(*plan, Doc(R"({"a": "text"})")).has_value());
  EXPECT_FALSE(ApplyTopLevelUpdate(*plan, Doc(R"({"a": {"$numberLong": "9223372036854775807"}})"))
                   .has_value());
}

// Through UpdateSpec, the declined cases still answer the tree's errors.
TEST(TopLevelUpdateTest, DeclinedUpdatesKeepTheirErrors) {
  EXPECT_EQ(testing::UpdateErrorCode(R"({"$inc": {"a": 1}})", R"({"_id": 1, "a": "x"})"),
            ErrorCode::kTypeMismatch);
  EXPECT_EQ(testing::UpdateErrorCode(R"({"$inc": {"a": 1}})",
                                     R"({"_id": 1, "a": {"$numberLong": "9223372036854775807"}})"),
            ErrorCode::kBadValue);
}

TEST(TopLevelUpdateTest, SettingADocumentStillChecksTheNestingDepth) {
  bson::DocumentBuilder update;  // {$set: {e: {n: {n: ... 1}}}}, 200 levels below e
  update.OpenDocument("$set");
  update.OpenDocument("e");
  for (int level = 0; level < 200; ++level) update.OpenDocument("n");
  update.AppendInt32("n", 1);
  for (int level = 0; level < 202; ++level) update.Close();
  StatusWith<UpdateSpec> spec =
      UpdateSpec::Parse(std::move(update).Finish().view(), UpdateOptions{});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  StatusWith<UpdateResult> result = spec.value().Apply(Doc(R"({"_id": 1})"), MatchDetails{}, false);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kOverflow);
}

}  // namespace
}  // namespace quarry::query::update_internal
