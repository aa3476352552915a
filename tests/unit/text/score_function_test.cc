#include "text/score_function.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "bson/json.h"

namespace quarry::text {
namespace {

StatusWith<ScoreFunction> Parse(const std::string& json) {
  bson::Document spec = bson::FromJson(R"({"f": )" + json + "}").value();
  return ScoreFunction::Parse(spec.view().Get("f"), "score.function");
}

// The score of `json` for a document of `relevance` holding `numbers`.
double Score(const std::string& json, double relevance,
             const std::map<std::string, double>& numbers = {}) {
  StatusWith<ScoreFunction> function = Parse(json);
  EXPECT_TRUE(function.ok()) << json << ": " << function.status().ToString();
  if (!function.ok()) return -1;
  return function.value().Score(relevance, [&](const std::string& path, double undefined) {
    auto it = numbers.find(path);
    return it != numbers.end() ? it->second : undefined;
  });
}

TEST(ScoreFunctionTest, ArithmeticOverRelevanceConstantsAndPaths) {
  EXPECT_DOUBLE_EQ(Score(R"({"score": "relevance"})", 2.5), 2.5);
  EXPECT_DOUBLE_EQ(Score(R"({"constant": 7})", 2.5), 7);
  EXPECT_DOUBLE_EQ(
      Score(R"({"add": [{"score": "relevance"}, {"constant": 1}, {"path": "n"}]})", 2, {{"n", 10}}),
      13);
  EXPECT_DOUBLE_EQ(
      Score(R"({"multiply": [{"score": "relevance"}, {"path": "n"}]})", 2, {{"n", 10}}), 20);
  EXPECT_DOUBLE_EQ(Score(R"({"path": {"value": "n", "undefined": 4}})", 2), 4);
  EXPECT_DOUBLE_EQ(Score(R"({"path": "n"})", 2), 0);
  EXPECT_DOUBLE_EQ(Score(R"({"log": {"constant": 1000}})", 1), 3);
  EXPECT_DOUBLE_EQ(Score(R"({"log1p": {"constant": 99}})", 1), 2);
}

TEST(ScoreFunctionTest, GaussDecaysWithDistanceBeyondTheOffset) {
  const std::string gauss =
      R"({"gauss": {"path": "n", "origin": 10, "scale": 5, "offset": 2, "decay": 0.25}})";
  EXPECT_DOUBLE_EQ(Score(gauss, 1, {{"n", 11}}), 1);       // within the offset
  EXPECT_NEAR(Score(gauss, 1, {{"n", 17}}), 0.25, 1e-12);  // the scale beyond the offset
  EXPECT_NEAR(Score(gauss, 1, {{"n", 3}}), 0.25, 1e-12);   // on either side
  EXPECT_NEAR(Score(R"({"gauss": {"path": "n", "origin": 0, "scale": 2}})", 1, {{"n", 4}}),
              std::pow(0.5, 4), 1e-12);  // decay 0.5 by default: twice the scale
}

TEST(ScoreFunctionTest, NegativeAndUndefinedResultsScoreZero) {
  EXPECT_EQ(Score(R"({"constant": -3})", 1), 0);
  EXPECT_EQ(Score(R"({"log": {"constant": -3}})", 1), 0);  // not a number
  EXPECT_EQ(Score(R"({"log": {"constant": 0}})", 1), 0);   // minus infinity
  EXPECT_EQ(Score(R"({"log1p": {"constant": -1}})", 1), 0);
}

TEST(ScoreFunctionTest, ListsThePathsItReads) {
  StatusWith<ScoreFunction> function = Parse(
      R"({"add": [{"path": "a"}, {"log": {"gauss": {"path": {"value": "b"}, "origin": 0,
          "scale": 1}}}]})");
  ASSERT_TRUE(function.ok());
  EXPECT_EQ(function.value().Paths(), (std::vector<std::string>{"a", "b"}));
}

TEST(ScoreFunctionTest, RefusesMalformedExpressions) {
  for (const char* json : {
           R"({})",
           R"(3)",
           R"({"constant": 1, "score": "relevance"})",
           R"({"add": [{"constant": 1}]})",
           R"({"multiply": {"constant": 1}})",
           R"({"constant": "1"})",
           R"({"constant": {"$numberDouble": "Infinity"}})",
           R"({"score": "other"})",
           R"({"path": ""})",
           R"({"path": {"undefined": 1}})",
           R"({"path": {"value": "n", "other": 1}})",
           R"({"log": 3})",
           R"({"log": {"constant": 1, "path": "n"}})",
           R"({"gauss": {"origin": 0, "scale": 1}})",
           R"({"gauss": {"path": "n", "scale": 1}})",
           R"({"gauss": {"path": "n", "origin": 0}})",
           R"({"gauss": {"path": "n", "origin": 0, "scale": 0}})",
           R"({"gauss": {"path": "n", "origin": 0, "scale": 1, "decay": 1}})",
           R"({"gauss": {"path": "n", "origin": 0, "scale": 1, "decay": 0}})",
           R"({"gauss": {"path": "n", "origin": 0, "scale": 1, "other": 0}})",
           R"({"sqrt": {"constant": 1}})",
       }) {
    EXPECT_EQ(Parse(json).status().code(), ErrorCode::kBadValue) << json;
  }
  // Deep nesting answers an error, not a stack overflow.
  std::string deep = R"({"constant": 1})";
  for (int i = 0; i < 70; ++i) deep = R"({"log": )" + deep + "}";
  EXPECT_EQ(Parse(deep).status().code(), ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::text
