#include "text/index_spec.h"

#include <gtest/gtest.h>

#include "bson/json.h"

namespace quarry::text {
namespace {

bson::Document Json(std::string_view json) { return bson::FromJson(json).value(); }

TextIndexSpec Spec(std::string_view json) {
  bson::Document normalized = TextIndexSpec::Normalize(Json(json).view()).value();
  return TextIndexSpec::Parse(normalized.view()).value();
}

TEST(TextIndexSpecTest, NormalizesAsMongodStoresIt) {
  bson::Document normalized =
      TextIndexSpec::Normalize(
          Json(R"({"v": 2, "key": {"title": "text", "body": "text"}, "name": "t",
                   "weights": {"title": 2.9, "extra": 3}})")
              .view())
          .value();
  EXPECT_EQ(normalized.view().ToJson(),
            Json(R"({"v": 2, "key": {"_fts": "text", "_ftsx": 1}, "name": "t",
                     "weights": {"body": 1, "extra": 3, "title": 2},
                     "default_language": "english", "language_override": "language",
                     "textIndexVersion": 3})")
                .view()
                .ToJson());
}

TEST(TextIndexSpecTest, RefusesBadOptions) {
  auto code = [](std::string_view json) {
    return TextIndexSpec::Normalize(Json(json).view()).status().code();
  };
  EXPECT_EQ(code(R"({"key": {"a": "text"}, "weights": {"a": 0.5}})"),
            ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(code(R"({"key": {"a": "text"}, "weights": {"a": "x"}})"),
            ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(code(R"({"key": {"a": "text"}, "default_language": "klingon"})"),
            ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(code(R"({"key": {"a": "text"}, "language_override": "$x"})"),
            ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(code(R"({"key": {"a": 1, "b": "text"}})"), ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(code(R"({"key": {"a": "text"}, "textIndexVersion": 7})"),
            ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(code(R"({"key": {"a": "text"}, "collation": {"locale": "fr"}})"),
            ErrorCode::kCannotCreateIndex);
}

TEST(TextIndexSpecTest, ScoresTermsAsMongod) {
  TextIndexSpec spec = Spec(R"({"key": {"a": "text"}})");
  TermScores one = spec.ScoreDocument(Json(R"({"a": "test"})").view()).value();
  EXPECT_DOUBLE_EQ(one.at("test"), 1.1);  // the whole string is the term
  TermScores twice = spec.ScoreDocument(Json(R"({"a": "test test"})").view()).value();
  EXPECT_DOUBLE_EQ(twice.at("test"), 1.5);
  TermScores two = spec.ScoreDocument(Json(R"({"a": "textual content"})").view()).value();
  EXPECT_DOUBLE_EQ(two.at("textual"), 0.75);
  EXPECT_DOUBLE_EQ(two.at("content"), 0.75);
}

TEST(TextIndexSpecTest, WeightsAndArraysAndSubdocuments) {
  TextIndexSpec spec = Spec(R"({"key": {"a": "text", "s.t": "text"}, "weights": {"a": 10}})");
  TermScores scores =
      spec.ScoreDocument(
              Json(R"({"a": ["apple pie", "apple"], "s": [{"t": "pie crust"}], "u": "pie"})")
                  .view())
          .value();
  // "apple pie" (10 × 0.75 each) and "apple" (10: the string is not its stem "appl").
  EXPECT_DOUBLE_EQ(scores.at("appl"), 7.5 + 10);
  EXPECT_DOUBLE_EQ(scores.at("pie"), 7.5 + 0.75);
  EXPECT_DOUBLE_EQ(scores.at("crust"), 0.75);
  EXPECT_EQ(scores.size(), 3u);
}

TEST(TextIndexSpecTest, WildcardHoldsEveryStringButTheLanguageField) {
  TextIndexSpec spec = Spec(R"({"key": {"$**": "text"}})");
  TermScores scores =
      spec.ScoreDocument(
              Json(R"({"a": "alpha", "b": {"c": ["beta"]}, "language": "english"})").view())
          .value();
  EXPECT_TRUE(scores.contains("alpha"));
  EXPECT_TRUE(scores.contains("beta"));
  EXPECT_FALSE(scores.contains("english"));
}

TEST(TextIndexSpecTest, DocumentLanguages) {
  TextIndexSpec spec = Spec(R"({"key": {"a": "text"}})");
  // "none" neither stems nor drops stop words.
  TermScores none =
      spec.ScoreDocument(Json(R"({"a": "the running", "language": "none"})").view()).value();
  EXPECT_TRUE(none.contains("the"));
  EXPECT_TRUE(none.contains("running"));
  EXPECT_EQ(spec.ScoreDocument(Json(R"({"a": "x", "language": 5})").view()).status().code(),
            static_cast<ErrorCode>(17261));
  EXPECT_EQ(spec.ScoreDocument(Json(R"({"a": "x", "language": "klingon"})").view()).status().code(),
            static_cast<ErrorCode>(17262));
}

}  // namespace
}  // namespace quarry::text
