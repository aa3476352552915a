#include "text/search_operator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bson/json.h"

namespace quarry::text {
namespace {

class SearchOperatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mapping_.root.dynamic = true;
    Put(0, R"({"t": "the quick brown fox", "k": "fox"})");
    Put(1, R"({"t": "a quick fox jumps over the lazy brown dog"})");
    Put(2, R"({"t": "lazy dogs sleep", "k": "dog"})");
    Put(3, R"({"t": ["brown", "fox"]})");
  }

  void Put(std::uint32_t label, std::string_view json) {
    bson::Document document = bson::FromJson(json).value();
    index_.Set(label, mapping_, document.view());
  }

  StatusWith<SearchOperator> Parse(std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    const bson::Element first = *spec.view().begin();
    return ParseSearchOperator(first.key, first.value);
  }

  // label -> score of `json`'s operator.
  std::map<std::uint32_t, double> Run(std::string_view json) {
    StatusWith<SearchOperator> op = Parse(json);
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    if (!op.ok()) return {};
    SearchScores scores = EvaluateSearch(op.value(), index_, mapping_).value();
    return {scores.begin(), scores.end()};
  }

  std::vector<std::uint32_t> Labels(std::string_view json) {
    std::vector<std::uint32_t> labels;
    for (const auto& [label, score] : Run(json)) labels.push_back(label);
    return labels;
  }

  double Bm25(std::string_view path, std::uint32_t label, std::string_view term) {
    const InvertedIndex::Field* field = index_.FieldAt(path);
    const InvertedIndex::Postings& postings = field->terms.at(std::string(term));
    return field->Score(label, static_cast<double>(postings.Find(label)->size()),
                        field->Idf(postings.size()));
  }

  FullTextMapping mapping_;
  InvertedIndex index_;
};

TEST_F(SearchOperatorTest, TextMatchesAnyTermAndSumsTheirScores) {
  auto scores = Run(R"({"text": {"query": "Quick DOG", "path": "t"}})");
  EXPECT_EQ(scores.size(), 2u);
  EXPECT_DOUBLE_EQ(scores.at(0), Bm25("t", 0, "quick"));
  EXPECT_DOUBLE_EQ(scores.at(1), Bm25("t", 1, "quick") + Bm25("t", 1, "dog"));
  EXPECT_EQ(Labels(R"({"text": {"query": "quick dog", "path": "t", "matchCriteria": "all"}})"),
            (std::vector<std::uint32_t>{1}));
}

TEST_F(SearchOperatorTest, TextOverSeveralPathsAndWildcards) {
  auto scores = Run(R"({"text": {"query": "fox", "path": ["t", "k"]}})");
  EXPECT_DOUBLE_EQ(scores.at(0), Bm25("t", 0, "fox") + Bm25("k", 0, "fox"));
  EXPECT_EQ(Labels(R"({"text": {"query": "dog", "path": {"wildcard": "*"}}})"),
            (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(Labels(R"({"text": {"query": "dog", "path": "nothing"}})"),
            (std::vector<std::uint32_t>{}));
}

TEST_F(SearchOperatorTest, FuzzyFindsTermsWithinTheEdits) {
  EXPECT_EQ(Labels(R"({"text": {"query": "lazzy", "path": "t", "fuzzy": {"maxEdits": 1}}})"),
            (std::vector<std::uint32_t>{1, 2}));
  // "dgo" is "dog" with two letters swapped: one edit.
  EXPECT_EQ(Labels(R"({"text": {"query": "dgo", "path": "t", "fuzzy": {"maxEdits": 1}}})"),
            (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(Labels(R"({"text": {"query": "lazzy", "path": "t",
                                "fuzzy": {"maxEdits": 1, "prefixLength": 3}}})"),
            (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(Labels(R"({"text": {"query": "kazy", "path": "t",
                                "fuzzy": {"maxEdits": 1, "prefixLength": 1}}})"),
            (std::vector<std::uint32_t>{}));
}

TEST_F(SearchOperatorTest, PhraseNeedsTheTermsInOrderWithinTheSlop) {
  EXPECT_EQ(Labels(R"({"phrase": {"query": "quick brown", "path": "t"}})"),
            (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(Labels(R"({"phrase": {"query": "quick fox", "path": "t", "slop": 1}})"),
            (std::vector<std::uint32_t>{0, 1}));
  // Two values of an array are never one phrase.
  EXPECT_EQ(Labels(R"({"phrase": {"query": "brown fox", "path": "t", "slop": 5}})"),
            (std::vector<std::uint32_t>{0}));
  const InvertedIndex::Field* t = index_.FieldAt("t");
  const double idf = t->Idf(t->terms.at("quick").size()) + t->Idf(t->terms.at("brown").size());
  EXPECT_DOUBLE_EQ(Run(R"({"phrase": {"query": "quick brown", "path": "t"}})").at(0),
                   t->Score(0, 1, idf));
}

TEST_F(SearchOperatorTest, CompoundCombinesItsClauses) {
  auto scores = Run(R"({"compound": {
      "must": {"text": {"query": "fox", "path": "t"}},
      "should": [{"text": {"query": "quick", "path": "t"}}],
      "mustNot": [{"text": {"query": "jumps", "path": "t"}}],
      "filter": [{"text": {"query": "brown", "path": "t"}}]}})");
  ASSERT_EQ(scores.size(), 2u);  // 0 and 3; 1 jumps
  EXPECT_DOUBLE_EQ(scores.at(0), Bm25("t", 0, "fox") + Bm25("t", 0, "quick"));
  EXPECT_DOUBLE_EQ(scores.at(3), Bm25("t", 3, "fox"));
  EXPECT_EQ(Labels(R"({"compound": {"should": [{"text": {"query": "sleep", "path": "t"}},
                                               {"text": {"query": "jumps", "path": "t"}}]}})"),
            (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(Labels(R"({"compound": {"minimumShouldMatch": 2, "should": [
      {"text": {"query": "lazy", "path": "t"}}, {"text": {"query": "brown", "path": "t"}}]}})"),
            (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(Labels(R"({"compound": {"mustNot": {"text": {"query": "fox", "path": "t"}}}})"),
            (std::vector<std::uint32_t>{}));
}

TEST_F(SearchOperatorTest, ScoreOptionsBoostOrReplace) {
  const double plain = Run(R"({"text": {"query": "sleep", "path": "t"}})").at(2);
  EXPECT_DOUBLE_EQ(
      Run(R"({"text": {"query": "sleep", "path": "t", "score": {"boost": {"value": 3}}}})").at(2),
      3 * plain);
  EXPECT_DOUBLE_EQ(
      Run(R"({"text": {"query": "sleep", "path": "t", "score": {"constant": {"value": 5}}}})")
          .at(2),
      5);
}

TEST_F(SearchOperatorTest, EqualsRangeInAndExistsReadTheValuesHeldWhole) {
  Put(10, R"({"year": 1999, "ok": true, "d": {"$date": "2020-01-02T00:00:00Z"}})");
  Put(11, R"({"year": 2005.0, "ok": false, "tags": [3, 7]})");
  Put(12, R"({"year": "2005", "sub": {"n": 1}})");
  EXPECT_EQ(Labels(R"({"equals": {"path": "year", "value": 2005}})"),
            (std::vector<std::uint32_t>{11}));
  EXPECT_EQ(Labels(R"({"equals": {"path": "ok", "value": true}})"),
            (std::vector<std::uint32_t>{10}));
  EXPECT_EQ(Labels(R"({"range": {"path": "year", "gte": 1999, "lt": 2005}})"),
            (std::vector<std::uint32_t>{10}));
  EXPECT_EQ(Labels(R"({"range": {"path": "d", "gt": {"$date": "2020-01-01T00:00:00Z"}}})"),
            (std::vector<std::uint32_t>{10}));
  EXPECT_EQ(Labels(R"({"in": {"path": "tags", "value": [7, 8]}})"),
            (std::vector<std::uint32_t>{11}));
  EXPECT_EQ(Labels(R"({"exists": {"path": "sub"}})"), (std::vector<std::uint32_t>{12}));
  // A dynamic mapping holds strings as text, not whole: "2005" is no number.
  EXPECT_EQ(Labels(R"({"exists": {"path": "year"}})"), (std::vector<std::uint32_t>{10, 11, 12}));
  EXPECT_EQ(Run(R"({"equals": {"path": "year", "value": 1999}})").at(10), 1);
  EXPECT_EQ(Parse(R"({"range": {"path": "year"}})").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(Parse(R"({"equals": {"path": "year"}})").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(Parse(R"({"in": {"path": "t", "value": [1, "a"]}})").status().code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(Parse(R"({"equals": {"path": "t", "value": {"a": 1}}})").status().code(),
            ErrorCode::kBadValue);
}

TEST(AutocompleteTest, MatchesTheGramsOfEachWord) {
  FullTextMapping mapping;
  AutocompleteOptions options;
  options.max_grams = 5;
  mapping.root.fields["t"].autocomplete = options;
  InvertedIndex index;
  for (const auto& [label, json] : std::vector<std::pair<std::uint32_t, std::string>>{
           {0, R"({"t": "The Prestige"})"},
           {1, R"({"t": "Café Society"})"},
           {2, R"({"t": "the office space", "u": "prestige"})"}}) {
    bson::Document document = bson::FromJson(json).value();
    index.Set(label, mapping, document.view());
  }
  auto labels = [&](std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    StatusWith<SearchOperator> op = ParseSearchOperator("autocomplete", spec.view().Get("a"));
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    std::vector<std::uint32_t> out;
    const SearchScores scores = EvaluateSearch(op.value(), index, mapping).value();
    for (const auto& [label, score] : scores) {
      out.push_back(label);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(labels(R"({"a": {"query": "pres", "path": "t"}})"), (std::vector<std::uint32_t>{0}));
  // Longer than maxGrams: its first five characters are looked for.
  EXPECT_EQ(labels(R"({"a": {"query": "prestidigitation", "path": "t"}})"),
            (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(labels(R"({"a": {"query": "cafe", "path": "t"}})"), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(labels(R"({"a": {"query": "p", "path": "t"}})"), (std::vector<std::uint32_t>{}));
  EXPECT_EQ(labels(R"({"a": {"query": "the of", "path": "t"}})"),
            (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(labels(R"({"a": {"query": "the of", "path": "t", "tokenOrder": "sequential"}})"),
            (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(labels(R"({"a": {"query": "offise", "path": "t", "fuzzy": {"maxEdits": 1}}})"),
            (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(labels(R"({"a": {"query": "pres", "path": "u"}})"), (std::vector<std::uint32_t>{}));
}

TEST_F(SearchOperatorTest, AKilledOrExpiredSearchStopsWithItsError) {
  StatusWith<SearchOperator> op = Parse(R"({"compound": {"should": [
      {"text": {"query": "fox", "path": "t", "fuzzy": {}}},
      {"phrase": {"query": "quick brown", "path": "t"}}]}})");
  ASSERT_TRUE(op.ok());
  Interrupt interrupt;
  EXPECT_TRUE(EvaluateSearch(op.value(), index_, mapping_, &interrupt).ok());
  interrupt.Kill(ErrorCode::kInterrupted);
  EXPECT_EQ(EvaluateSearch(op.value(), index_, mapping_, &interrupt).status().code(),
            ErrorCode::kInterrupted);
  Interrupt expired;
  expired.SetDeadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(EvaluateSearch(op.value(), index_, mapping_, &expired).status().code(),
            ErrorCode::kMaxTimeMSExpired);
  // A later search on the thread is not stopped by an earlier one's interrupt.
  EXPECT_TRUE(EvaluateSearch(op.value(), index_, mapping_).ok());
}

TEST_F(SearchOperatorTest, RefusesMalformedAndUnsupportedOperators) {
  auto code = [&](std::string_view json) { return Parse(json).status().code(); };
  auto reason = [&](std::string_view json) { return std::string(Parse(json).status().reason()); };
  EXPECT_EQ(reason(R"({"text": {"path": "t"}})"), "\"text.query\" is required");
  EXPECT_EQ(reason(R"({"text": {"query": "x"}})"), "\"text.path\" is required");
  EXPECT_EQ(code(R"({"text": {"query": 5, "path": "t"}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t", "bogus": 1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t", "fuzzy": {"maxEdits": 3}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t", "synonyms": "s"}})"),
            ErrorCode::kNotImplemented);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": {"value": "t", "multi": "m"}}})"),
            ErrorCode::kNotImplemented);
  EXPECT_EQ(code(R"({"phrase": {"query": "x", "path": "t", "slop": -1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"compound": {}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"compound": {"should": [], "minimumShouldMatch": 1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(reason(R"({"compound": {"must": [{"text": {"query": "x"}}]}})"),
            "\"compound.must[0].text.path\" is required");
  EXPECT_EQ(reason(R"({"regex": {"query": "x", "path": "t"}})"),
            "the $search operator \"regex\" is not supported by Quarry yet");
  EXPECT_EQ(code(R"({"autocomplete": {"query": "x", "path": "t", "tokenOrder": "random"}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"nonsense": {}})"), ErrorCode::kBadValue);
  EXPECT_TRUE(IsSearchOperatorName("regex"));
  EXPECT_FALSE(IsSearchOperatorName("index"));
}

}  // namespace
}  // namespace quarry::text
