#include "text/search.h"

#include <gtest/gtest.h>

#include "bson/json.h"

namespace quarry::text {
namespace {

bson::Document Json(std::string_view json) { return bson::FromJson(json).value(); }

AnalyzedSearch Read(std::string_view search, std::string_view language = "none") {
  TextSearch parsed;
  parsed.search = std::string(search);
  return Analyze(parsed, *FindLanguage(language)).value();
}

using Terms = std::set<std::string, std::less<>>;

TEST(TextSearchTest, ParsesTermsPhrasesAndNegations) {
  AnalyzedSearch read = Read(R"("a" -b -"c")");
  EXPECT_EQ(read.index_terms, (Terms{"a"}));
  EXPECT_EQ(read.negated_terms, (Terms{"b"}));
  EXPECT_EQ(read.positive_phrases, (std::vector<std::string>{"a"}));
  EXPECT_EQ(read.negated_phrases, (std::vector<std::string>{"c"}));
}

TEST(TextSearchTest, NegationLastsUntilWhitespace) {
  EXPECT_EQ(Read("-foo-bar baz").negated_terms, (Terms{"bar", "foo"}));
  EXPECT_EQ(Read("-foo-bar baz").index_terms, (Terms{"baz"}));
  EXPECT_EQ(Read("- foo").index_terms, (Terms{"foo"}));
  EXPECT_EQ(Read("foo-bar").index_terms, (Terms{"bar", "foo"}));
  // A tab is text to the search parser, though the tokenizer splits at it.
  EXPECT_EQ(Read("-foo\tbar").negated_terms, (Terms{"bar", "foo"}));
}

TEST(TextSearchTest, StemsAndDropsStopWordsInEnglish) {
  EXPECT_EQ(Read("the running dogs", "english").index_terms, (Terms{"dog", "run"}));
  EXPECT_TRUE(Read("the of and", "english").index_terms.empty());
}

TEST(TextSearchTest, ParseErrors) {
  auto code = [](std::string_view json) {
    bson::Document doc = Json(json);
    return TextSearch::Parse(doc.view().Get("t")).status().code();
  };
  EXPECT_EQ(code(R"({"t": 5})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"t": {}})"), ErrorCode::kNoSuchKey);
  EXPECT_EQ(code(R"({"t": {"$search": 5}})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(code(R"({"t": {"$search": "x", "$caseSensitive": 1}})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(code(R"({"t": {"$search": "x", "$foo": 1}})"), ErrorCode::kBadValue);
  bson::Document ok = Json(R"({"t": {"$search": "x", "$language": "klingon"}})");
  TextSearch search = TextSearch::Parse(ok.view().Get("t")).value();
  EXPECT_EQ(Analyze(search, *FindLanguage("english")).status().code(), ErrorCode::kBadValue);
}

TEST(TextSearchTest, MatchesPhrasesNegationsAndSensitivity) {
  bson::Document spec_doc =
      TextIndexSpec::Normalize(Json(R"({"key": {"a": "text"}, "default_language": "none"})").view())
          .value();
  TextIndexSpec spec = TextIndexSpec::Parse(spec_doc.view()).value();
  bson::Document doc = Json(R"({"a": "The Quick brown Fox", "b": "lazy dog"})");
  auto matches = [&](std::string_view search, Sensitivity sensitivity = {}) {
    TextSearch parsed;
    parsed.search = std::string(search);
    parsed.sensitivity = sensitivity;
    AnalyzedSearch read = Analyze(parsed, *FindLanguage("none")).value();
    return MatchesDocument(read, spec, doc.view()).value();
  };
  EXPECT_TRUE(matches(R"("quick brown")"));
  EXPECT_FALSE(matches(R"("brown quick")"));
  EXPECT_FALSE(matches(R"(fox -quick)"));
  EXPECT_TRUE(matches(R"(fox -lazy)"));  // b is not indexed
  EXPECT_FALSE(matches(R"(fox -"the quick")"));
  EXPECT_TRUE(matches("Quick", {.case_sensitive = true}));
  EXPECT_FALSE(matches("quick", {.case_sensitive = true}));
}

}  // namespace
}  // namespace quarry::text
