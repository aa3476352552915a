// Matcher::Conjuncts: the conditions every matching document satisfies, which planners read to
// find point lookups and index bounds. A condition that a matching document need not satisfy must
// never appear.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "query/match/matcher.h"
#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;

std::string OpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "$eq";
    case CompareOp::kLt:
      return "$lt";
    case CompareOp::kLte:
      return "$lte";
    case CompareOp::kGt:
      return "$gt";
    case CompareOp::kGte:
      return "$gte";
    case CompareOp::kIn:
      return "$in";
    case CompareOp::kRegex:
      return "$regex";
    case CompareOp::kExists:
      return "$exists";
    case CompareOp::kElemMatch:
      return "$elemMatch";
  }
  return "?";
}

// `condition` as "path op value", "not path op value" when negated; $elemMatch lists its element
// conditions in braces.
std::string Show(const PathCondition& condition) {
  std::string operand;
  if (condition.op == CompareOp::kRegex) {
    operand =
        "/" + std::string(condition.regex_pattern) + "/" + std::string(condition.regex_options);
  } else if (condition.op == CompareOp::kElemMatch) {
    operand = "{";
    for (const PathCondition& element : condition.element_conditions) {
      operand += (operand.size() > 1 ? "; " : "") + Show(element);
    }
    operand += "}";
  } else if (condition.op != CompareOp::kExists) {
    operand = condition.value.ToJson();
  }
  std::string shown = condition.negated ? "not " : "";
  shown += std::string(condition.path) + (condition.path.empty() ? "" : " ") + OpName(condition.op);
  if (!operand.empty()) shown += " " + operand;
  return shown;
}

// The conjuncts of `filter` (or with `bounding`, its BoundingConjuncts), each Show()n.
std::vector<std::string> Conjuncts(std::string_view filter, bool bounding = false) {
  bson::Document f = Doc(filter);
  StatusWith<Matcher> matcher = Matcher::Parse(f);
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString() << " for " << filter;
  if (!matcher.ok()) return {};
  std::vector<std::string> out;
  for (const PathCondition& condition :
       bounding ? matcher.value().BoundingConjuncts() : matcher.value().Conjuncts()) {
    out.push_back(Show(condition));
  }
  return out;
}

std::vector<std::string> BoundingConjuncts(std::string_view filter) {
  return Conjuncts(filter, /*bounding=*/true);
}

using Strings = std::vector<std::string>;

TEST(MatcherConjunctsTest, EqualityAndComparisonsOfOnePath) {
  EXPECT_EQ(Conjuncts(R"({"a": 1})"), Strings{"a $eq 1"});
  EXPECT_EQ(Conjuncts(R"({"a": {"$eq": "s"}})"), Strings{"a $eq \"s\""});
  EXPECT_EQ(Conjuncts(R"({"a": {"%gt": 1, "%lte": 5}})"), (Strings{"a $gt 1", "a $lte 5"}));
  EXPECT_EQ(Conjuncts(R"({"a": {"%lt": 1, "%gte": 0}})"), (Strings{"a $lt 1", "a $gte 0"}));
  EXPECT_EQ(Conjuncts(R"({"x.y": 3})"), Strings{"x.y $eq 3"});
}

TEST(MatcherConjunctsTest, TopLevelFieldsAndAndClausesInFilterOrder) {
  EXPECT_EQ(Conjuncts(R"({"a": 1, "b": {"%lt": 2}})"), (Strings{"a $eq 1", "b $lt 2"}));
  EXPECT_EQ(Conjuncts(R"({"$and": [{"a": 1}, {"$and": [{"b": 2}]}], "c": 3})"),
            (Strings{"a $eq 1", "b $eq 2", "c $eq 3"}));
}

TEST(MatcherConjunctsTest, EveryElementOfAllIsAnEquality) {
  EXPECT_EQ(Conjuncts(R"({"a": {"$all": [1, 2]}})"), (Strings{"a $eq 1", "a $eq 2"}));
}

TEST(MatcherConjunctsTest, ConditionsAMatchNeedNotSatisfyAreLeftOut) {
  for (const char* filter : {
           R"({"$or": [{"a": 1}]})",
           R"({"$nor": [{"a": 1}]})",
           R"({"a": {"$not": {"$eq": 1}}})",
           R"({"a": {"$ne": 1}})",
           R"({"a": {"$nin": [1]}})",
           R"({"a": {"$not": {"$in": [1]}}})",
           R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})",
           R"({"a": {"$elemMatch": {"$eq": 1}}})",
           R"({"a": {"$elemMatch": {"$in": [1]}}})",
           R"({"a": {"$exists": true}})",
           R"({"$expr": {"$eq": ["$a", 1]}})",
           R"({"$and": [{"$or": [{"a": 1}, {"b": 1}]}]})",
       }) {
    EXPECT_EQ(Conjuncts(filter), Strings{}) << filter;
  }
}

TEST(MatcherConjunctsTest, OtherConditionsDoNotHideTheComparisons) {
  EXPECT_EQ(Conjuncts(R"({"$or": [{"b": 1}], "a": 1, "c": {"$nin": [2]}, "d": {"%gte": 4}})"),
            (Strings{"a $eq 1", "d $gte 4"}));
}

TEST(MatcherConjunctsTest, InReportsItsArray) {
  EXPECT_EQ(Conjuncts(R"({"a": {"$in": [3, 1, null]}})"), Strings{"a $in [ 3, 1, null ]"});
  EXPECT_EQ(Conjuncts(R"({"a": {"$in": []}, "b": 1})"), (Strings{"a $in [  ]", "b $eq 1"}));
  EXPECT_EQ(Conjuncts(R"({"$and": [{"a.b": {"$in": ["x"]}}]})"), Strings{"a.b $in [ \"x\" ]"});
}

TEST(MatcherConjunctsTest, InWithARegexIsLeftOut) {
  EXPECT_EQ(
      Conjuncts(R"({"a": {"$in": [1, {"$regularExpression": {"pattern": "^x", "options": ""}}]}})"),
      Strings{});
}

TEST(MatcherConjunctsTest, RegexesReportPatternAndOptions) {
  EXPECT_EQ(Conjuncts(R"({"a": {"$regularExpression": {"pattern": "^x", "options": "i"}}})"),
            Strings{"a $regex /^x/i"});
  EXPECT_EQ(Conjuncts(R"({"a": {"%regex": "^y", "%options": "m"}, "b": 2})"),
            (Strings{"a $regex /^y/m", "b $eq 2"}));
  EXPECT_EQ(
      Conjuncts(R"({"a": {"$all": [{"$regularExpression": {"pattern": "z", "options": ""}}, 1]}})"),
      (Strings{"a $regex /z/", "a $eq 1"}));
}

TEST(MatcherConjunctsTest, EqualityToARegexValueIsAComparison) {
  EXPECT_EQ(Conjuncts(R"({"a": {"$eq": {"$regularExpression": {"pattern": "x", "options": ""}}}})"),
            Strings{R"(a $eq { "$regularExpression" : { "pattern" : "x", "options" : "" } })"});
}

TEST(MatcherConjunctsTest, ValueConditionsHaveNone) {
  bson::Document condition = Doc(R"({"c": {"%gt": 1}})");
  StatusWith<Matcher> matcher = Matcher::ParseValueCondition(condition.Get("c"));
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  EXPECT_TRUE(matcher.value().Conjuncts().empty());
}

TEST(MatcherConjunctsTest, BoundingConjunctsAddNegationsExistsAndElemMatch) {
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$ne": 1}, "b": {"$nin": [2, 3]}})"),
            (Strings{"not a $eq 1", "not b $in [ 2, 3 ]"}));
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$not": {"%gt": 5}}})"), Strings{"not a $gt 5"});
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$exists": true}, "b": {"$exists": false}})"),
            (Strings{"a $exists", "not b $exists"}));
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$elemMatch": {"%gte": 3, "%lt": 5}}})"),
            Strings{"a $elemMatch {$gte 3; $lt 5}"});
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$elemMatch": {"$ne": null}}})"),
            Strings{"a $elemMatch {not $eq null}"});
  EXPECT_EQ(BoundingConjuncts(R"({"a": 1, "$and": [{"c": {"$ne": 2}}]})"),
            (Strings{"a $eq 1", "not c $eq 2"}));
}

TEST(MatcherConjunctsTest, ElemMatchOnDocumentsReportsItsPositiveConditionsBelowItsPath) {
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$elemMatch": {"b": 1, "c": {"%gt": 2}}}})"),
            (Strings{"a.b $eq 1", "a.c $gt 2"}));
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$elemMatch": {"b": {"$elemMatch": {"c": 1}}}}})"),
            Strings{"a.b.c $eq 1"});
  // A negation inside may hold for one element and not for the document's other values.
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$elemMatch": {"b": {"$ne": 1}, "c": 2}}})"),
            Strings{"a.c $eq 2"});
  // Numeric components may name positions: the filter and the keys see arrays differently.
  EXPECT_EQ(BoundingConjuncts(R"({"a": {"$elemMatch": {"0": 1}}})"), Strings{});
  EXPECT_EQ(BoundingConjuncts(R"({"a.1": {"$elemMatch": {"b": 1}}})"), Strings{});
}

TEST(MatcherConjunctsTest, ConditionsOfOneElemMatchNameIt) {
  bson::Document f = Doc(
      R"({"a": {"$elemMatch": {"b": 1, "c": {"$elemMatch": {"d": 2}}}},
          "e": {"$elemMatch": {"f": 3}}, "g": 4})");
  StatusWith<Matcher> matcher = Matcher::Parse(f);
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  const std::vector<PathCondition> conditions = matcher.value().BoundingConjuncts();
  ASSERT_EQ(conditions.size(), 4u);
  EXPECT_EQ(conditions[0].path, "a.b");
  EXPECT_EQ(conditions[0].elem_match_path, "a");
  // The innermost $elemMatch, with its whole path.
  EXPECT_EQ(conditions[1].path, "a.c.d");
  EXPECT_EQ(conditions[1].elem_match_path, "a.c");
  EXPECT_NE(conditions[1].elem_match, conditions[0].elem_match);
  EXPECT_EQ(conditions[2].elem_match_path, "e");
  EXPECT_NE(conditions[2].elem_match, conditions[0].elem_match);
  EXPECT_EQ(conditions[3].elem_match, nullptr);
}

TEST(MatcherConjunctsTest, NegationsThatCannotBeInvertedAreLeftOut) {
  for (const char* filter : {
           R"({"a": {"$not": {"%gt": 1, "%lt": 5}}})",
           R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})",
           R"({"a": {"$nin": [{"$regularExpression": {"pattern": "^x", "options": ""}}]}})",
           R"({"a": {"$not": {"$elemMatch": {"%gt": 1}}}})",
           R"({"a": {"$not": {"$type": "string"}}})",
           R"({"$nor": [{"a": 1}]})",
           R"({"$or": [{"a": {"$ne": 1}}, {"b": 1}]})",
       }) {
    EXPECT_EQ(BoundingConjuncts(filter), Strings{}) << filter;
  }
}

}  // namespace
}  // namespace quarry::query
