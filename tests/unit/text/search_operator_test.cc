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
  // A boost by a numeric field: its value, or `undefined` (0 unless given) without one; numbers
  // in arrays are no single value, so they count as absent.
  Put(4, R"({"t": "sleep well", "stars": [4, 2]})");
  Put(5, R"({"t": "sleep tight", "stars": 2.5})");
  const auto plain_all = Run(R"({"text": {"query": "sleep", "path": "t"}})");
  const auto by_stars = Run(R"({"text": {"query": "sleep", "path": "t",
                                          "score": {"boost": {"path": "stars"}}}})");
  EXPECT_DOUBLE_EQ(by_stars.at(4), 0);
  EXPECT_DOUBLE_EQ(by_stars.at(5), 2.5 * plain_all.at(5));
  EXPECT_DOUBLE_EQ(by_stars.at(2), 0);
  EXPECT_DOUBLE_EQ(Run(R"({"text": {"query": "sleep", "path": "t",
                                    "score": {"boost": {"path": "stars", "undefined": 1.5}}}})")
                       .at(2),
                   1.5 * plain_all.at(2));
  auto code = [&](std::string_view json) { return Parse(json).status().code(); };
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t",
                              "score": {"boost": {"path": "s", "value": 2}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t",
                              "score": {"boost": {"value": 2}, "constant": {"value": 1}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t", "score": {"dismax": {}}}})"),
            ErrorCode::kBadValue);
}

TEST_F(SearchOperatorTest, ScoreFunctionsReplaceTheScore) {
  Put(4, R"({"t": "sleep well", "stars": [4, 2]})");
  Put(5, R"({"t": "sleep tight", "stars": 2.5})");
  const auto plain = Run(R"({"text": {"query": "sleep", "path": "t"}})");
  const auto got = Run(R"({"text": {"query": "sleep", "path": "t", "score": {"function":
      {"add": [{"multiply": [{"score": "relevance"}, {"path": "stars"}]},
               {"log1p": {"path": {"value": "stars", "undefined": 9}}}]}}}})");
  EXPECT_DOUBLE_EQ(got.at(2), 0 + std::log10(1 + 9));  // no stars: 0 and 9
  EXPECT_DOUBLE_EQ(got.at(4), 0 + std::log10(1 + 9));  // stars in an array count as absent
  EXPECT_DOUBLE_EQ(got.at(5), plain.at(5) * 2.5 + std::log10(1 + 2.5));
  // A negative result, or one that is no number, scores 0; the document still matches.
  const auto negative = Run(R"({"text": {"query": "sleep", "path": "t", "score": {"function":
      {"log": {"constant": -1}}}}})");
  EXPECT_EQ(negative.size(), plain.size());
  for (const auto& [label, score] : negative) EXPECT_EQ(score, 0) << label;
  // A path the index holds no numbers at fails the search.
  StatusWith<SearchOperator> on_text = Parse(R"({"text": {"query": "sleep", "path": "t",
      "score": {"function": {"path": "missing_static"}}}})");
  ASSERT_TRUE(on_text.ok());
  FullTextMapping strings_only;
  strings_only.root.fields["t"].is_string = true;
  EXPECT_EQ(EvaluateSearch(on_text.value(), index_, strings_only).status().code(),
            ErrorCode::kBadValue);
}

TEST_F(SearchOperatorTest, EqualsNullFindsNullsAndExistsFindsEveryMappedKey) {
  Put(20, R"({"v": null})");
  Put(21, R"({"v": [1, null]})");
  Put(22, R"({"w": 1})");
  Put(23, R"({"v": {"$regularExpression": {"pattern": "a", "options": ""}}})");
  Put(24, R"({"v": []})");
  EXPECT_EQ(Labels(R"({"equals": {"path": "v", "value": null}})"),
            (std::vector<std::uint32_t>{20, 21}));
  // A key exists whatever its value: null, a type no field indexes, an empty array.
  EXPECT_EQ(Labels(R"({"exists": {"path": "v"}})"), (std::vector<std::uint32_t>{20, 21, 23, 24}));
  EXPECT_EQ(Parse(R"({"in": {"path": "v", "value": [null]}})").status().code(),
            ErrorCode::kBadValue);
  // A static field holds its nulls and exists with a value of a type it does not index.
  mapping_ = FullTextMapping();
  mapping_.root.fields["s"].is_string = true;
  index_ = InvertedIndex();
  Put(30, R"({"s": 5})");
  Put(31, R"({"s": null})");
  Put(32, R"({"s": "text", "other": null})");
  EXPECT_EQ(Labels(R"({"exists": {"path": "s"}})"), (std::vector<std::uint32_t>{30, 31, 32}));
  EXPECT_EQ(Labels(R"({"equals": {"path": "s", "value": null}})"),
            (std::vector<std::uint32_t>{31}));
  EXPECT_EQ(Labels(R"({"equals": {"path": "other", "value": null}})"),
            (std::vector<std::uint32_t>{}));
}

TEST_F(SearchOperatorTest, MoreLikeThisSearchesTheLikeDocumentsTermsHeldTwiceOrMore) {
  // quick (2 documents) and fox (3) count; zebra (none) and sleep (one) do not; nor does a path
  // the index holds no strings at.
  const auto got = Run(R"({"moreLikeThis": {"like": [{"t": "quick fox fox zebra sleep"},
                                                     {"n": 5, "sub": {"t": "x"}}]}})");
  const auto text = Run(R"({"text": {"query": "quick fox", "path": "t"}})");
  ASSERT_EQ(got.size(), text.size());
  for (const auto& [label, score] : text) EXPECT_DOUBLE_EQ(got.at(label), score) << label;
  EXPECT_TRUE(Run(R"({"moreLikeThis": {"like": {"t": "sleep"}}})").empty());
  auto code = [&](std::string_view json) { return Parse(json).status().code(); };
  EXPECT_EQ(code(R"({"moreLikeThis": {}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"moreLikeThis": {"like": []}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"moreLikeThis": {"like": "fox"}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"moreLikeThis": {"like": [{"t": "fox"}, 3]}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"moreLikeThis": {"like": {"t": "fox"}, "x": 1}})"), ErrorCode::kBadValue);
}

TEST_F(SearchOperatorTest, DismaxScoresTheBestShouldClausePlusATieBreak) {
  const auto fox = Run(R"({"text": {"query": "fox", "path": "t"}})");
  const auto brown = Run(R"({"text": {"query": "brown", "path": "t"}})");
  const auto got = Run(R"({"compound": {"should": [{"text": {"query": "fox", "path": "t"}},
      {"text": {"query": "brown", "path": "t"}}], "score": {"dismax": {"tieBreakerScore": 0.25}}}})");
  ASSERT_EQ(got.size(), 3u);  // 0, 1 and 3 hold fox; 0 and 3 brown too
  for (const auto& [label, score] : got) {
    const double a = fox.contains(label) ? fox.at(label) : 0;
    const double b = brown.contains(label) ? brown.at(label) : 0;
    EXPECT_DOUBLE_EQ(score, std::max(a, b) + 0.25 * std::min(a, b)) << label;
  }
  auto code = [&](std::string_view json) { return Parse(json).status().code(); };
  EXPECT_EQ(code(R"({"compound": {"must": {"text": {"query": "fox", "path": "t"}},
      "should": {"text": {"query": "fox", "path": "t"}}, "score": {"dismax": {}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"compound": {"filter": {"text": {"query": "fox", "path": "t"}},
      "score": {"dismax": {}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"compound": {"should": {"text": {"query": "fox", "path": "t"}},
      "score": {"dismax": {"tieBreakerScore": 1.5}}}})"),
            ErrorCode::kBadValue);
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

TEST(MultiAnalyzerTest, APathNamesTheAnalysisItSearches) {
  FullTextMapping mapping;
  FullTextField& title = mapping.root.fields["title"];
  title.is_string = true;
  title.multi["english"].is_string = true;
  title.multi["english"].analyzer = SearchAnalyzer::Find("lucene.english");
  InvertedIndex index;
  for (const auto& [label, json] : std::vector<std::pair<std::uint32_t, std::string>>{
           {0, R"({"title": "Running Men"})"}, {1, R"({"title": "The runner runs"})"}}) {
    bson::Document document = bson::FromJson(json).value();
    index.Set(label, mapping, document.view());
  }
  auto run = [&](std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    const bson::Element first = *spec.view().begin();
    StatusWith<SearchScores> scores =
        EvaluateSearch(ParseSearchOperator(first.key, first.value).value(), index, mapping);
    std::vector<std::uint32_t> labels;
    if (!scores.ok()) return std::make_pair(scores.status().code(), labels);
    for (const auto& [label, score] : scores.value()) labels.push_back(label);
    std::sort(labels.begin(), labels.end());
    return std::make_pair(ErrorCode::kOk, labels);
  };
  using Labels = std::vector<std::uint32_t>;
  // Stemmed, "run" finds both; standard analysis finds neither.
  EXPECT_EQ(run(R"({"text": {"query": "run", "path": {"value": "title", "multi": "english"}}})"),
            std::make_pair(ErrorCode::kOk, Labels{0, 1}));
  EXPECT_EQ(run(R"({"text": {"query": "run", "path": "title"}})"),
            std::make_pair(ErrorCode::kOk, Labels{}));
  // A wildcard path names the fields' own analysis only.
  EXPECT_EQ(run(R"({"text": {"query": "run", "path": {"wildcard": "*"}}})"),
            std::make_pair(ErrorCode::kOk, Labels{}));
  EXPECT_EQ(run(R"({"text": {"query": "x", "path": {"value": "title", "multi": "french"}}})").first,
            ErrorCode::kBadValue);
  EXPECT_EQ(run(R"({"compound": {"should": [{"text": {"query": "x",
                    "path": {"value": "nothing", "multi": "english"}}}]}})")
                .first,
            ErrorCode::kBadValue);
}

TEST(TokenNormalizerTest, ALowercasedTokenFieldIsQueriedLowercased) {
  FullTextMapping mapping;
  mapping.root.fields["name"].value_kinds = kTokenValues;
  mapping.root.fields["name"].lowercase_tokens = true;
  mapping.root.fields["code"].value_kinds = kTokenValues;
  InvertedIndex index;
  bson::Document document = bson::FromJson(R"({"name": "Ann", "code": "Ab"})").value();
  index.Set(0, mapping, document.view());
  auto matches = [&](std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    const bson::Element first = *spec.view().begin();
    StatusWith<SearchOperator> op = ParseSearchOperator(first.key, first.value);
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return EvaluateSearch(op.value(), index, mapping).value().size();
  };
  EXPECT_EQ(matches(R"({"equals": {"path": "name", "value": "ANN"}})"), 1u);
  EXPECT_EQ(matches(R"({"in": {"path": "name", "value": ["x", "aNn"]}})"), 1u);
  EXPECT_EQ(matches(R"({"range": {"path": "name", "gte": "AM", "lt": "AO"}})"), 1u);
  // Without the normalizer, case counts.
  EXPECT_EQ(matches(R"({"equals": {"path": "code", "value": "ab"}})"), 0u);
  EXPECT_EQ(matches(R"({"equals": {"path": "code", "value": "Ab"}})"), 1u);
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
  // A path mapped only as autocomplete exists where it holds a string.
  bson::Document without = bson::FromJson(R"({"u": "x"})").value();
  index.Set(3, mapping, without.view());
  bson::Document exists = bson::FromJson(R"({"e": {"path": "t"}})").value();
  StatusWith<SearchOperator> op = ParseSearchOperator("exists", exists.view().Get("e"));
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const SearchScores scores = EvaluateSearch(op.value(), index, mapping).value();
  EXPECT_EQ(scores.size(), 3u);
  EXPECT_FALSE(scores.contains(3));
}

TEST_F(SearchOperatorTest, WildcardAndRegexMatchTermsWhole) {
  FullTextMapping mapping;
  mapping.root.fields["k"].is_string = true;
  mapping.root.fields["k"].analyzer = SearchAnalyzer::Find("lucene.keyword");
  mapping.root.fields["t"].is_string = true;
  InvertedIndex index;
  for (const auto& [label, json] : std::vector<std::pair<std::uint32_t, std::string>>{
           {0, R"({"k": "Star Wars", "t": "Star Wars"})"},
           {1, R"({"k": "Lone Star", "t": "Lone Star"})"},
           {2, R"({"k": ["Starman", "Stardust"], "t": "Starman"})"}}) {
    bson::Document document = bson::FromJson(json).value();
    index.Set(label, mapping, document.view());
  }
  auto run = [&](std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    const bson::Element first = *spec.view().begin();
    StatusWith<SearchOperator> op = ParseSearchOperator(first.key, first.value);
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    return EvaluateSearch(op.value(), index, mapping);
  };
  auto labels = [&](std::string_view json) {
    std::map<std::uint32_t, double> scores;
    StatusWith<SearchScores> found = run(json);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    if (found.ok()) scores.insert(found.value().begin(), found.value().end());
    return scores;
  };
  using Scores = std::map<std::uint32_t, double>;
  EXPECT_EQ(labels(R"({"wildcard": {"query": "Star*", "path": "k"}})"),
            (Scores{{0, 1.0}, {2, 1.0}}));
  EXPECT_EQ(labels(R"({"wildcard": {"query": "*Star", "path": "k"}})"), (Scores{{1, 1.0}}));
  EXPECT_EQ(labels(R"json({"regex": {"query": "Star(man|dust)", "path": "k"}})json"),
            (Scores{{2, 1.0}}));
  EXPECT_EQ(labels(R"({"regex": {"query": ["Lone.*", "Star W.*"], "path": "k"}})"),
            (Scores{{0, 1.0}, {1, 1.0}}));
  // An analyzed field's terms are lowercased words.
  EXPECT_EQ(labels(R"({"wildcard": {"query": "star*", "path": "t", "allowAnalyzedField": true}})"),
            (Scores{{0, 1.0}, {1, 1.0}, {2, 1.0}}));
  // The pattern goes through the analyzer's lowercasing, as the terms did; a regex does not.
  EXPECT_EQ(labels(R"({"wildcard": {"query": "Star*", "path": "t", "allowAnalyzedField": true}})"),
            (Scores{{0, 1.0}, {1, 1.0}, {2, 1.0}}));
  EXPECT_EQ(labels(R"({"regex": {"query": "Star.*", "path": "t", "allowAnalyzedField": true}})"),
            (Scores{}));
  // Each path a document matches on adds one.
  EXPECT_EQ(labels(R"({"wildcard": {"query": "*man", "path": ["k", "t"],
                                    "allowAnalyzedField": true}})"),
            (Scores{{2, 2.0}}));
  EXPECT_EQ(labels(R"({"regex": {"query": "lone", "path": "t", "allowAnalyzedField": true,
                                 "score": {"boost": {"value": 3}}}})"),
            (Scores{{1, 3.0}}));
  const StatusWith<SearchScores> analyzed = run(R"({"wildcard": {"query": "s*", "path": "t"}})");
  EXPECT_EQ(analyzed.status().code(), ErrorCode::kBadValue);
  EXPECT_NE(std::string(analyzed.status().reason()).find("allowAnalyzedField"), std::string::npos);
  auto code = [&](std::string_view json) { return Parse(json).status().code(); };
  EXPECT_EQ(code(R"json({"regex": {"query": "(a", "path": "k"}})json"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"regex": {"query": "a&b", "path": "k"}})"), ErrorCode::kNotImplemented);
  EXPECT_EQ(code(R"({"wildcard": {"query": "a*", "path": "k", "allowAnalyzedField": 1}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"wildcard": {"path": "k"}})"), ErrorCode::kBadValue);
}

TEST_F(SearchOperatorTest, NearScoresByDistanceToTheOrigin) {
  Put(10, R"({"year": 2000, "d": {"$date": "2020-01-01T00:00:00Z"}})");
  Put(11, R"({"year": [1990, 2012], "d": {"$date": "2020-01-11T00:00:00Z"}})");
  Put(12, R"({"year": "2000"})");
  auto scores = Run(R"({"near": {"path": "year", "origin": 2010, "pivot": 2}})");
  EXPECT_EQ(scores.size(), 2u);
  EXPECT_DOUBLE_EQ(scores.at(10), 2.0 / (2.0 + 10.0));
  EXPECT_DOUBLE_EQ(scores.at(11), 2.0 / (2.0 + 2.0));  // the nearest value counts
  const double day = 86'400'000;
  scores = Run(R"({"near": {"path": "d", "origin": {"$date": "2020-01-01T00:00:00Z"},
                            "pivot": 86400000}})");
  EXPECT_DOUBLE_EQ(scores.at(10), 1.0);
  EXPECT_DOUBLE_EQ(scores.at(11), day / (day + 10 * day));
  // Numbers are not near a date.
  EXPECT_TRUE(Run(R"({"near": {"path": "year", "origin": {"$date": "2020-01-01T00:00:00Z"},
                               "pivot": 1}})")
                  .empty());
  auto code = [&](std::string_view json) { return Parse(json).status().code(); };
  EXPECT_EQ(code(R"({"near": {"path": "year", "origin": 1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"near": {"path": "year", "origin": 1, "pivot": 0}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"near": {"path": "year", "origin": "x", "pivot": 1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"near": {"path": "loc", "origin": {"type": "Point", "coordinates": [1, 2]},
                              "pivot": 1}})"),
            ErrorCode::kOk);
  EXPECT_EQ(code(R"({"near": {"path": "loc", "origin": {"type": "Point", "coordinates": [1, 92]},
                              "pivot": 1}})"),
            ErrorCode::kBadValue);
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
  EXPECT_EQ(code(R"({"phrase": {"query": "x", "path": "t", "synonyms": ""}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t", "fuzzy": {}, "matchCriteria": "all"}})"),
            ErrorCode::kOk);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t", "synonyms": "s",
                              "fuzzy": {"maxEdits": 1}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "t", "synonyms": ""}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"autocomplete": {"query": "x", "path": "t", "synonyms": "s"}})"),
            ErrorCode::kBadValue);
  // multi: only where analysis happens; with a value, not a wildcard.
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": {"value": "t", "multi": "m"}}})"),
            ErrorCode::kOk);
  EXPECT_EQ(code(R"({"autocomplete": {"query": "x", "path": {"value": "t", "multi": "m"}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"range": {"gt": 1, "path": {"value": "t", "multi": "m"}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": {"wildcard": "*", "multi": "m"}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": {"multi": "m"}}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": {"value": "t", "multi": ""}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"phrase": {"query": "x", "path": "t", "slop": -1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"compound": {}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"compound": {"should": [], "minimumShouldMatch": 1}})"), ErrorCode::kBadValue);
  EXPECT_EQ(reason(R"({"compound": {"must": [{"text": {"query": "x"}}]}})"),
            "\"compound.must[0].text.path\" is required");
  EXPECT_EQ(reason(R"({"span": {"term": {"query": "x", "path": "t"}}})"),
            "the $search operator \"span\" is not supported by Quarry yet");
  EXPECT_EQ(reason(R"({"queryString": {"query": "x AND", "defaultPath": "t"}})"),
            "\"queryString.query\": unexpected end at byte 6");
  EXPECT_EQ(reason(R"({"queryString": {"query": "x"}})"),
            "\"queryString.defaultPath\" is required");
  EXPECT_EQ(code(R"({"autocomplete": {"query": "x", "path": "t", "tokenOrder": "random"}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"nonsense": {}})"), ErrorCode::kBadValue);
  EXPECT_TRUE(IsSearchOperatorName("regex"));
  EXPECT_TRUE(IsSearchOperatorName("queryString"));
  EXPECT_FALSE(IsSearchOperatorName("index"));
}

}  // namespace
}  // namespace quarry::text
