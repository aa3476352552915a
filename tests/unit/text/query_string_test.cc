#include "text/query_string.h"

#include <gtest/gtest.h>

#include <map>

#include "bson/json.h"
#include "text/search_analyzer.h"

namespace quarry::text {
namespace {

using Kind = SearchOperator::Kind;

SearchOperator Parsed(std::string_view query) {
  StatusWith<SearchOperator> op = ParseQueryString(query, "plot");
  EXPECT_TRUE(op.ok()) << query << ": " << op.status().ToString();
  return op.ok() ? std::move(op).value() : SearchOperator();
}

ErrorCode ErrorOf(std::string_view query) {
  StatusWith<SearchOperator> op = ParseQueryString(query, "plot");
  return op.ok() ? ErrorCode::kOk : op.status().code();
}

std::map<std::string, std::string> BoundsOf(const SearchOperator& op) {
  std::map<std::string, std::string> out;
  for (const bson::Element& e : op.values.view()) out[std::string(e.key)] = e.value.String();
  return out;
}

TEST(QueryStringParseTest, AWordIsTextOnTheDefaultPath) {
  const SearchOperator op = Parsed("Captain");
  EXPECT_EQ(op.kind, Kind::kText);
  EXPECT_EQ(op.queries, (std::vector<std::string>{"Captain"}));
  EXPECT_EQ(op.paths, (std::vector<std::string>{"plot"}));
  EXPECT_EQ(Parsed("title:kirk").paths, (std::vector<std::string>{"title"}));
  EXPECT_EQ(Parsed("meta.title:kirk").paths, (std::vector<std::string>{"meta.title"}));
  // '-' and '+' inside a word are part of it; escapes are removed.
  EXPECT_EQ(Parsed("wi-fi").queries, (std::vector<std::string>{"wi-fi"}));
  EXPECT_EQ(Parsed(R"(c\+\+ )").queries, (std::vector<std::string>{"c++"}));
  EXPECT_EQ(Parsed(R"(a\:b)").paths, (std::vector<std::string>{"plot"}));
}

TEST(QueryStringParseTest, WordsAreOptionalUnlessJoinedByAnd) {
  const SearchOperator any = Parsed("captain kirk");
  EXPECT_EQ(any.kind, Kind::kCompound);
  EXPECT_EQ(any.should.size(), 2u);
  EXPECT_TRUE(any.must.empty());
  const SearchOperator all = Parsed("captain AND kirk && chess");
  EXPECT_EQ(all.must.size(), 3u);
  EXPECT_TRUE(all.should.empty());
  // Lucene's parser: AND makes the clause before it required; OR after it changes nothing.
  const SearchOperator mixed = Parsed("captain AND kirk OR chess");
  ASSERT_EQ(mixed.must.size(), 2u);
  EXPECT_EQ(mixed.must[1].queries.front(), "kirk");
  ASSERT_EQ(mixed.should.size(), 1u);
  EXPECT_EQ(mixed.should[0].queries.front(), "chess");
  const SearchOperator other = Parsed("captain OR kirk AND chess");
  EXPECT_EQ(other.should.size(), 1u);
  EXPECT_EQ(other.must.size(), 2u);
  // Lowercase "and" is a word.
  EXPECT_EQ(Parsed("captain and kirk").should.size(), 3u);
}

TEST(QueryStringParseTest, ModifiersRequireOrProhibit) {
  const SearchOperator op = Parsed("+captain -kirk chess NOT spock !bones");
  EXPECT_EQ(op.must.size(), 1u);
  EXPECT_EQ(op.should.size(), 1u);
  EXPECT_EQ(op.must_not.size(), 3u);
  // A prohibited clause stays prohibited when AND follows it.
  const SearchOperator kept = Parsed("-kirk AND captain");
  EXPECT_EQ(kept.must_not.size(), 1u);
  EXPECT_EQ(kept.must.size(), 1u);
  // Only negations: a compound that matches nothing.
  const SearchOperator negative = Parsed("NOT kirk");
  EXPECT_EQ(negative.kind, Kind::kCompound);
  EXPECT_EQ(negative.must_not.size(), 1u);
}

TEST(QueryStringParseTest, GroupsAndFieldsApplyToTheirClauses) {
  const SearchOperator op = Parsed("title:(captain OR kirk) AND chess");
  ASSERT_EQ(op.must.size(), 2u);
  const SearchOperator& group = op.must[0];
  EXPECT_EQ(group.kind, Kind::kCompound);
  ASSERT_EQ(group.should.size(), 2u);
  EXPECT_EQ(group.should[1].paths, (std::vector<std::string>{"title"}));
  EXPECT_EQ(op.must[1].paths, (std::vector<std::string>{"plot"}));
  // A group of one unmodified clause is that clause.
  EXPECT_EQ(Parsed("((kirk))").kind, Kind::kText);
}

TEST(QueryStringParseTest, PhrasesFuzzyWildcardsRegexAndBoosts) {
  const SearchOperator phrase = Parsed(R"("new york"~2^3)");
  EXPECT_EQ(phrase.kind, Kind::kPhrase);
  EXPECT_EQ(phrase.queries.front(), "new york");
  EXPECT_EQ(phrase.slop, 2u);
  EXPECT_EQ(phrase.score.kind, ScoreModifier::Kind::kBoost);
  EXPECT_DOUBLE_EQ(phrase.score.value, 3);
  const SearchOperator fuzzy = Parsed("kirk~");
  ASSERT_TRUE(fuzzy.fuzzy.has_value());
  EXPECT_EQ(fuzzy.fuzzy->max_edits, 2);
  EXPECT_EQ(Parsed("kirk^2~1").fuzzy->max_edits, 1);
  EXPECT_FALSE(Parsed("kirk~0").fuzzy.has_value());
  // Lucene's reading: more than 2 edits is 2; below 1, a similarity over the word's length.
  EXPECT_EQ(Parsed("kirk~3").fuzzy->max_edits, 2);
  EXPECT_EQ(Parsed("kirk~0.5").fuzzy->max_edits, 2);
  EXPECT_EQ(Parsed("kirk~0.7").fuzzy->max_edits, 1);
  EXPECT_FALSE(Parsed("kirk~0.9").fuzzy.has_value());
  const SearchOperator wildcard = Parsed("capt?in*");
  EXPECT_EQ(wildcard.kind, Kind::kWildcard);
  EXPECT_TRUE(wildcard.allow_analyzed_field);
  EXPECT_EQ(Parsed(R"(what\?)").kind, Kind::kText);
  const SearchOperator regex = Parsed("/ca.*n/");
  EXPECT_EQ(regex.kind, Kind::kRegex);
  EXPECT_EQ(regex.queries.front(), "ca.*n");
  // Boosts of nested groups multiply.
  const SearchOperator boosted = Parsed("(kirk^2)^1.5");
  EXPECT_DOUBLE_EQ(boosted.score.value, 3);
}

TEST(QueryStringParseTest, RangesOfTerms) {
  const SearchOperator both = Parsed("title:[b TO d}");
  EXPECT_EQ(both.kind, Kind::kTermRange);
  EXPECT_EQ(both.paths, (std::vector<std::string>{"title"}));
  using Bounds = std::map<std::string, std::string>;
  EXPECT_EQ(BoundsOf(both), (Bounds{{"gte", "b"}, {"lt", "d"}}));
  EXPECT_EQ(BoundsOf(Parsed(R"({* TO "x y"])")), (Bounds{{"lte", "x y"}}));
  EXPECT_EQ(BoundsOf(Parsed("[* TO *]")), Bounds());
}

TEST(QueryStringParseTest, MalformedQueriesAreBadValue) {
  for (std::string_view query : {"",        "   ",        "(kirk",    "kirk)",
                                 "\"kirk",  "kirk AND",   "AND kirk", "kirk OR OR spock",
                                 "*irk",    "?irk",       "title:*",  "kirk~1.5",
                                 "kirk^",   "kirk^0",     "[a b]",    "[a TO b",
                                 "]",       "title:",     "kirk\\",   "/unterminated",
                                 "capt*~1", "ti*le:kirk", "()",       "+",
                                 "^2"}) {
    EXPECT_EQ(ErrorOf(query), ErrorCode::kBadValue) << query;
  }
  EXPECT_EQ(ErrorOf("*:*"), ErrorCode::kOk);
  EXPECT_EQ(ErrorOf("*:kirk"), ErrorCode::kNotImplemented);
  EXPECT_EQ(ErrorOf("/a&b/"), ErrorCode::kNotImplemented);
}

TEST(QueryStringParseTest, BoundsWhatOneQueryMakes) {
  std::string deep(65, '(');
  deep += "kirk" + std::string(65, ')');
  EXPECT_EQ(ErrorOf(deep), ErrorCode::kBadValue);
  std::string nested(64, '(');
  nested += "kirk" + std::string(64, ')');
  EXPECT_EQ(ErrorOf(nested), ErrorCode::kOk);
  std::string many;
  for (int i = 0; i < 1025; ++i) many += "w ";
  EXPECT_EQ(ErrorOf(many), ErrorCode::kBadValue);
  // A million parentheses answer an error instead of exhausting the stack.
  EXPECT_EQ(ErrorOf(std::string(1'000'000, '(')), ErrorCode::kBadValue);
}

class QueryStringSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mapping_.root.dynamic = true;
    mapping_.analyzer = SearchAnalyzer::Find("lucene.english");
    Put(0, R"({"plot": "Captain Kirk plays chess", "title": "Alpha"})");
    Put(1, R"({"plot": "the captain of the ship", "title": "Bravo"})");
    Put(2, R"({"plot": "Kirk and Spock", "title": "Charlie"})");
    Put(3, R"({"plot": "a game of chess in New York", "title": "Delta"})");
  }

  void Put(std::uint32_t label, std::string_view json) {
    bson::Document document = bson::FromJson(json).value();
    index_.Set(label, mapping_, document.view());
  }

  std::map<std::uint32_t, double> Scores(const SearchOperator& op) {
    SearchScores scores = EvaluateSearch(op, index_, mapping_).value();
    return {scores.begin(), scores.end()};
  }

  std::map<std::uint32_t, double> QueryString(std::string_view query) {
    // `query` is written as it goes in JSON (a quote escaped).
    bson::Document spec =
        bson::FromJson(R"({"q": {"defaultPath": "plot", "query": ")" + std::string(query) + "\"}}")
            .value();
    StatusWith<SearchOperator> op = ParseSearchOperator("queryString", spec.view().Get("q"));
    EXPECT_TRUE(op.ok()) << query << ": " << op.status().ToString();
    return op.ok() ? Scores(op.value()) : std::map<std::uint32_t, double>();
  }

  std::map<std::uint32_t, double> Operator(std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    const bson::Element first = *spec.view().begin();
    StatusWith<SearchOperator> op = ParseSearchOperator(first.key, first.value);
    EXPECT_TRUE(op.ok()) << json << ": " << op.status().ToString();
    return op.ok() ? Scores(op.value()) : std::map<std::uint32_t, double>();
  }

  static std::vector<std::uint32_t> Labels(const std::map<std::uint32_t, double>& scores) {
    std::vector<std::uint32_t> out;
    for (const auto& [label, score] : scores) out.push_back(label);
    return out;
  }

  FullTextMapping mapping_;
  InvertedIndex index_;
};

TEST_F(QueryStringSearchTest, ScoresAsTheOperatorsItSpells) {
  EXPECT_EQ(QueryString("captain kirk"),
            Operator(R"({"compound": {"should": [{"text": {"query": "captain", "path": "plot"}},
                                                  {"text": {"query": "kirk", "path": "plot"}}]}})"));
  EXPECT_EQ(QueryString("captain AND kirk OR chess"),
            Operator(R"({"compound": {"must": [{"text": {"query": "captain", "path": "plot"}},
                                               {"text": {"query": "kirk", "path": "plot"}}],
                                      "should": [{"text": {"query": "chess", "path": "plot"}}]}})"));
  EXPECT_EQ(QueryString("kirk -spock"),
            Operator(R"({"compound": {"should": [{"text": {"query": "kirk", "path": "plot"}}],
                                      "mustNot": [{"text": {"query": "spock", "path": "plot"}}]}})"));
  EXPECT_EQ(QueryString(R"(\"new york\"~1)"),
            Operator(R"({"phrase": {"query": "new york", "path": "plot", "slop": 1}})"));
  EXPECT_EQ(Labels(QueryString("title:alpha OR spock")), (std::vector<std::uint32_t>{0, 2}));
}

TEST_F(QueryStringSearchTest, BoostsMultiplyTheirClause) {
  const auto plain = QueryString("kirk chess");
  const auto boosted = QueryString("kirk^3 chess");
  const auto kirk = Operator(R"({"text": {"query": "kirk", "path": "plot"}})");
  EXPECT_DOUBLE_EQ(boosted.at(0), plain.at(0) + 2 * kirk.at(0));
  EXPECT_DOUBLE_EQ(boosted.at(3), plain.at(3));
}

TEST_F(QueryStringSearchTest, StopWordsDropOutOfTheirGroup) {
  // english removes "the": the clause drops out, so "the AND chess" is "chess".
  EXPECT_EQ(QueryString("the AND chess"), QueryString("chess"));
  EXPECT_EQ(Labels(QueryString("(the OR of) AND kirk")), (std::vector<std::uint32_t>{0, 2}));
  // A query of nothing but stop words matches nothing.
  EXPECT_TRUE(QueryString("the").empty());
}

TEST_F(QueryStringSearchTest, WildcardsRegexAndRangesMatchTerms) {
  EXPECT_EQ(Labels(QueryString("Capt*")), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(Labels(QueryString("/k.r./")), (std::vector<std::uint32_t>{0, 2}));
  // The pattern is normalized (lowercased) as Lucene's parser sends it.
  EXPECT_EQ(Labels(QueryString("/K.R./")), (std::vector<std::uint32_t>{0, 2}));
  // Bounds are normalized (lowercased) before they are compared with the terms.
  EXPECT_EQ(Labels(QueryString("title:[B TO Charlie]")), (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(Labels(QueryString("title:{bravo TO charlie]")), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(Labels(QueryString("title:[c TO *]")), (std::vector<std::uint32_t>{2, 3}));
  // Bounds are not stemmed: english holds "Charlie" as "charli", which sorts before "charlie".
  EXPECT_EQ(Labels(QueryString("title:[charlie TO *]")), (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(QueryString("title:[a TO z]").at(0), 1);
}

TEST_F(QueryStringSearchTest, EveryDocumentAndFuzzyWordsAsLuceneReadsThem) {
  // `*:*` is every document, scored 1 (boosts apply), and a clause like any other.
  EXPECT_EQ(QueryString("*:*"), (std::map<std::uint32_t, double>{{0, 1}, {1, 1}, {2, 1}, {3, 1}}));
  EXPECT_EQ(Labels(QueryString("*:* -kirk")), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_DOUBLE_EQ(QueryString("*:*^2").at(3), 2);
  // A fuzzy word is normalized, not stemmed: english holds "plays" as "plai", one edit from
  // "play" but two from "plays" (which stemming would have made "plai" itself).
  EXPECT_EQ(Labels(QueryString("plays~1")), (std::vector<std::uint32_t>{}));
  EXPECT_EQ(Labels(QueryString("plai~1")), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(Labels(QueryString("PLAI~1")), (std::vector<std::uint32_t>{0}));
}

}  // namespace
}  // namespace quarry::text
