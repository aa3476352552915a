#include "text/custom_analyzer.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "bson/json.h"

namespace quarry::text {
namespace {

std::shared_ptr<const CustomAnalyzer> Parse(std::string_view json) {
  bson::Document spec = bson::FromJson(std::string(R"({"a": )") + std::string(json) + "}").value();
  StatusWith<std::shared_ptr<const CustomAnalyzer>> parsed =
      ParseCustomAnalyzer(spec.view().Get("a"), "analyzers[0]");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? parsed.value() : nullptr;
}

ErrorCode CodeOf(std::string_view json) {
  bson::Document spec = bson::FromJson(std::string(R"({"a": )") + std::string(json) + "}").value();
  return ParseCustomAnalyzer(spec.view().Get("a"), "analyzers[0]").status().code();
}

// "term@position" for each term.
std::vector<std::string> Terms(const CustomAnalyzer& analyzer, std::string_view value) {
  std::vector<std::string> out;
  analyzer.analyzer().Analyze(value, [&](std::string_view term, std::uint32_t position) {
    out.push_back(std::string(term) + "@" + std::to_string(position));
  });
  return out;
}

using Strings = std::vector<std::string>;

TEST(CustomAnalyzerTest, TokenizersSplitAsLucenesDo) {
  auto standard = Parse(R"({"name": "s", "tokenizer": {"type": "standard", "maxTokenLength": 3}})");
  EXPECT_EQ(Terms(*standard, "Hello, big world"),
            (Strings{"Hel@0", "lo@1", "big@2", "wor@3", "ld@4"}));
  auto keyword = Parse(R"({"name": "k", "tokenizer": {"type": "keyword"}})");
  EXPECT_EQ(Terms(*keyword, "New York"), (Strings{"New York@0"}));
  auto edge = Parse(R"({"name": "e", "tokenizer": {"type": "edgeGram", "minGram": 2,
                                                    "maxGram": 4}})");
  EXPECT_EQ(Terms(*edge, "café!"), (Strings{"ca@0", "caf@1", "café@2"}));
  auto ngram = Parse(R"({"name": "n", "tokenizer": {"type": "nGram", "minGram": 2,
                                                     "maxGram": 2}})");
  EXPECT_EQ(Terms(*ngram, "abc"), (Strings{"ab@0", "bc@1"}));
  auto split = Parse(R"({"name": "r", "tokenizer": {"type": "regexSplit", "pattern": "[-,]+"}})");
  EXPECT_EQ(Terms(*split, "a-b,,c-"), (Strings{"a@0", "b@1", "c@2"}));
  auto capture = Parse(R"j({"name": "c", "tokenizer": {"type": "regexCaptureGroup",
                                                       "pattern": "#(\\w+)", "group": 1}})j");
  EXPECT_EQ(Terms(*capture, "see #mongodb and #search"), (Strings{"mongodb@0", "search@1"}));
}

TEST(CustomAnalyzerTest, TokenFiltersChangeDropOrMultiplyTerms) {
  auto analyzer = Parse(R"({"name": "f", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "lowercase"}, {"type": "asciiFolding"},
      {"type": "stopword", "tokens": ["The", "of"]},
      {"type": "length", "min": 2, "max": 7},
      {"type": "snowballStemming", "stemmerName": "english"}]})");
  // Dropped terms keep their positions, so phrases do not join across them.
  EXPECT_EQ(Terms(*analyzer, "The Café of x Runners elephants"),
            (Strings{"cafe@1", "runner@4"}));  // "elephants" is past 7 characters
  auto grams = Parse(R"({"name": "g", "tokenizer": {"type": "standard"}, "tokenFilters": [
      {"type": "edgeGram", "minGram": 2, "maxGram": 3, "termNotInBounds": "include"}]})");
  EXPECT_EQ(Terms(*grams, "a star"), (Strings{"a@0", "star@1", "st@1", "sta@1"}));
  auto both = Parse(R"({"name": "o", "tokenizer": {"type": "keyword"}, "tokenFilters": [
      {"type": "asciiFolding", "originalTokens": "include"}, {"type": "reverse"}]})");
  EXPECT_EQ(Terms(*both, "Straße"), (Strings{"eßartS@0", "essartS@0"}));
  auto regex = Parse(R"({"name": "x", "tokenizer": {"type": "keyword"}, "tokenFilters": [
      {"type": "regex", "pattern": "[^0-9]", "replacement": "", "matches": "all"}]})");
  EXPECT_EQ(Terms(*regex, "(555) 123-4567"), (Strings{"5551234567@0"}));
  auto possessive = Parse(R"({"name": "p", "tokenizer": {"type": "standard"}, "tokenFilters": [
      {"type": "englishPossessive"}, {"type": "porterStemming"}]})");
  EXPECT_EQ(Terms(*possessive, "dog's running"), (Strings{"dog@0", "run@1"}));
}

TEST(CustomAnalyzerTest, CharFiltersRewriteTheTextAndOffsetsPointIntoTheOriginal) {
  auto html = Parse(R"({"name": "h", "charFilters": [{"type": "htmlStrip", "ignoredTags": ["a"]}],
                         "tokenizer": {"type": "whitespace"}})");
  EXPECT_EQ(Terms(*html, "<p>bo<b>ld</b></p><p>Tom &amp; Jerry</p><!-- x -->"),
            (Strings{"bold@0", "Tom@1", "&@2", "Jerry@3"}));
  auto mapping = Parse(R"({"name": "m", "charFilters": [{"type": "mapping",
                                                           "mappings": {"-": "", ".": " "}}],
                            "tokenizer": {"type": "whitespace"}})");
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> spans;
  const std::string value = "e-mail a.b";
  mapping->analyzer().AnalyzeWithOffsets(
      value, [&](std::string_view term, std::uint32_t, std::size_t start, std::size_t end) {
        spans.emplace_back(std::string(term), start, end);
      });
  using Span = std::tuple<std::string, std::size_t, std::size_t>;
  EXPECT_EQ(spans, (std::vector<Span>{{"email", 0, 6}, {"a", 7, 8}, {"b", 9, 10}}));
  auto icu = Parse(R"({"name": "i", "charFilters": [{"type": "icuNormalize"}],
                        "tokenizer": {"type": "keyword"}})");
  EXPECT_EQ(Terms(*icu, "ＡＢＣ"), (Strings{"abc@0"}));  // full width, case folded
}

TEST(CustomAnalyzerTest, NormalizeUsesOnlyCharFiltersAndNormalizingFilters) {
  auto analyzer = Parse(R"({"name": "n", "charFilters": [{"type": "mapping",
                                                            "mappings": {"-": ""}}],
                             "tokenizer": {"type": "standard"}, "tokenFilters": [
      {"type": "lowercase"}, {"type": "snowballStemming", "stemmerName": "english"},
      {"type": "icuFolding"}]})");
  EXPECT_EQ(analyzer->analyzer().Normalize("Ré-Runnings*"), "rerunnings*");
  EXPECT_EQ(SearchAnalyzer::Standard().Normalize("Star*"), "star*");
  EXPECT_EQ(SearchAnalyzer::Find("lucene.keyword")->Normalize("Star*"), "Star*");
}

TEST(CustomAnalyzerTest, RefusesMalformedAndUnsupportedParts) {
  EXPECT_EQ(CodeOf(R"({"tokenizer": {"type": "standard"}})"), ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x"})"), ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "sentences"}})"), ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "edgeGram", "minGram": 3,
                                                   "maxGram": 2}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"j({"name": "x", "tokenizer": {"type": "regexSplit", "pattern": "("}})j"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"j({"name": "x", "tokenizer": {"type": "regexCaptureGroup",
                                                   "pattern": "(a)", "group": 2}})j"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard", "extra": 1}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"},
                       "tokenFilters": [{"type": "stopword"}]})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"},
                       "tokenFilters": [{"type": "regex", "pattern": "a", "replacement": "b"}]})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"},
                       "tokenFilters": [{"type": "snowballStemming", "stemmerName": "klingon"}]})"),
            ErrorCode::kNotImplemented);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "uaxUrlEmail"}})"),
            ErrorCode::kNotImplemented);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"},
                       "charFilters": [{"type": "mapping", "mappings": {}}]})"),
            ErrorCode::kBadValue);
}

// "term@position+length" for each token a query reads.
std::vector<std::string> QueryTerms(const CustomAnalyzer& analyzer, std::string_view value) {
  std::vector<std::string> out;
  for (const QueryToken& token : analyzer.analyzer().QueryTokens(value)) {
    out.push_back(token.term + "@" + std::to_string(token.position) + "+" +
                  std::to_string(token.length));
  }
  return out;
}

TEST(CustomAnalyzerTest, KeywordRepeatKeepsTheWordBesideItsStemAndRemoveDuplicatesDropsRepeats) {
  auto both = Parse(R"({"name": "k", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "keywordRepeat"}, {"type": "snowballStemming", "stemmerName": "english"}]})");
  EXPECT_EQ(Terms(*both, "running cat"), (Strings{"running@0", "run@0", "cat@1", "cat@1"}));
  auto once = Parse(R"({"name": "k", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "keywordRepeat"}, {"type": "porterStemming"}, {"type": "removeDuplicates"}]})");
  EXPECT_EQ(Terms(*once, "running cat cat"), (Strings{"running@0", "run@0", "cat@1", "cat@2"}));
}

TEST(CustomAnalyzerTest, LimitTokenCountKeepsTheFirstTokens) {
  auto limited = Parse(R"({"name": "l", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "limitTokenCount", "maxTokenCount": 2}]})");
  EXPECT_EQ(Terms(*limited, "one two three four"), (Strings{"one@0", "two@1"}));
}

TEST(CustomAnalyzerTest, PluralStemmersRespectKeywords) {
  auto english = Parse(R"({"name": "e", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "englishMinimalStemming"}]})");
  EXPECT_EQ(Terms(*english, "ponies glass toes cats"),
            (Strings{"pony@0", "glass@1", "toes@2", "cat@3"}));
  auto spanish = Parse(R"({"name": "s", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "keywordRepeat"}, {"type": "spanishPluralStemming"}]})");
  EXPECT_EQ(Terms(*spanish, "canciones"), (Strings{"canciones@0", "cancion@0"}));
}

TEST(CustomAnalyzerTest, ShinglesJoinRunsOfTokensAndSpanPositions) {
  auto shingles = Parse(R"({"name": "s", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "shingle", "minShingleSize": 2, "maxShingleSize": 3}]})");
  EXPECT_EQ(QueryTerms(*shingles, "a b c d"),
            (Strings{"a b@0+1", "a b c@0+2", "b c@1+1", "b c d@1+2", "c d@2+1"}));
  // A dropped stop word leaves "_" in its place, at the end too.
  auto stopped = Parse(R"({"name": "s", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "stopword", "tokens": ["the"]},
      {"type": "shingle", "minShingleSize": 2, "maxShingleSize": 2}]})");
  EXPECT_EQ(Terms(*stopped, "the cat sat on the"),
            (Strings{"_ cat@0", "cat sat@1", "sat on@2", "on _@3"}));
  // Fewer tokens than the smallest shingle give none.
  EXPECT_TRUE(Terms(*shingles, "alone").empty());
}

TEST(CustomAnalyzerTest, WordDelimiterGraphSplitsAtDelimitersCaseChangesAndDigits) {
  auto split = Parse(R"({"name": "w", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "wordDelimiterGraph"}]})");
  // A token of only delimiters leaves a hole.
  EXPECT_EQ(QueryTerms(*split, "PowerShot SD500 O'Neil's -- j2se hello"),
            (Strings{"Power@0+1", "Shot@1+1", "SD@2+1", "500@3+1", "O@4+1", "Neil@5+1", "j@7+1",
                     "2@8+1", "se@9+1", "hello@10+1"}));
  auto joined = Parse(R"({"name": "w", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "wordDelimiterGraph",
       "delimiterOptions": {"concatenateWords": true, "preserveOriginal": true},
       "protectedWords": {"words": ["C++"]}}]})");
  EXPECT_EQ(QueryTerms(*joined, "Wi-Fi c++ ok"),
            (Strings{"Wi-Fi@0+2", "WiFi@0+2", "Wi@0+1", "Fi@1+1", "c++@2+1", "ok@3+1"}));
  auto whole = Parse(R"({"name": "w", "tokenizer": {"type": "whitespace"}, "tokenFilters": [
      {"type": "wordDelimiterGraph", "delimiterOptions": {"splitOnCaseChange": false,
       "generateNumberParts": false, "concatenateNumbers": true}}]})");
  EXPECT_EQ(QueryTerms(*whole, "PowerShot 500-42 x"),
            (Strings{"PowerShot@0+1", "50042@1+1", "x@2+1"}));
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"}, "tokenFilters": [
                       {"type": "wordDelimiterGraph", "delimiterOptions": {"bogus": true}}]})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"}, "tokenFilters": [
                       {"type": "wordDelimiterGraph", "protectedWords": {"words": [" "]}}]})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"}, "tokenFilters": [
                       {"type": "wordDelimiterGraph", "protectedWords": {}}]})"),
            ErrorCode::kBadValue);
}

TEST(CustomAnalyzerTest, FiltersAtlasHasAndQuarryNotAreNamedNotImplemented) {
  for (std::string_view type : {"kStemming", "stempel", "daitchMokotoffSoundex"}) {
    EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"}, "tokenFilters": [
                         {"type": ")" +
                     std::string(type) + R"("}]})"),
              ErrorCode::kNotImplemented)
        << type;
  }
  // Names Atlas does not have are not filters at all.
  EXPECT_EQ(CodeOf(R"({"name": "x", "tokenizer": {"type": "standard"},
                       "tokenFilters": [{"type": "irishLowercase"}]})"),
            ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::text
