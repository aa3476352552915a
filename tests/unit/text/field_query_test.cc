#include "text/field_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bson/json.h"
#include "text/full_text_mapping.h"

namespace quarry::text {
namespace {

using Kind = FieldQuery::Kind;

FieldQuery Build(const std::vector<QueryToken>& tokens, bool all, bool quoted = false,
                 std::uint32_t slop = 0) {
  StatusWith<std::optional<FieldQuery>> built = BuildFieldQuery(tokens, all, quoted, slop);
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_TRUE(built.ok() && built.value().has_value());
  return built.ok() && built.value().has_value() ? *built.value() : FieldQuery();
}

std::vector<std::string> TermsOf(const FieldQuery& query) { return query.terms; }

TEST(BuildFieldQueryTest, TokensAtOnePositionAreOneSynonymQuery) {
  EXPECT_FALSE(BuildFieldQuery({}, false, false, 0).value().has_value());
  const FieldQuery one = Build({{"cafe", 0, 1}}, false);
  EXPECT_EQ(one.kind, Kind::kTerm);
  const FieldQuery stacked = Build({{"cafe", 0, 1}, {"café", 0, 1}}, true);
  EXPECT_EQ(stacked.kind, Kind::kSynonym);
  EXPECT_EQ(TermsOf(stacked), (std::vector<std::string>{"cafe", "café"}));
}

TEST(BuildFieldQueryTest, PositionsJoinByTheMatchCriteria) {
  const std::vector<QueryToken> tokens = {{"ca", 0, 1}, {"caf", 0, 1}, {"au", 1, 1}};
  const FieldQuery any = Build(tokens, false);
  ASSERT_EQ(any.kind, Kind::kShould);
  ASSERT_EQ(any.clauses.size(), 2u);
  EXPECT_EQ(any.clauses[0].kind, Kind::kSynonym);
  EXPECT_EQ(any.clauses[1].kind, Kind::kTerm);
  EXPECT_EQ(Build(tokens, true).kind, Kind::kMust);
}

TEST(BuildFieldQueryTest, QuotedTokensAreAPhraseWithStackedTermsInOneSlot) {
  const FieldQuery phrase = Build({{"cafe", 0, 1}, {"café", 0, 1}, {"noir", 2, 1}}, true, true, 1);
  ASSERT_EQ(phrase.kind, Kind::kPhrase);
  ASSERT_EQ(phrase.slots.size(), 2u);
  EXPECT_EQ(phrase.slots[0].terms, (std::vector<std::string>{"cafe", "café"}));
  EXPECT_EQ(phrase.slots[1].position, 2u);  // the gap a stop word left stays
  EXPECT_EQ(phrase.slop, 1u);
  // One token is a term, quoted or not.
  EXPECT_EQ(Build({{"noir", 0, 1}}, true, true).kind, Kind::kTerm);
}

TEST(BuildFieldQueryTest, AGraphIsAQueryPerPathBetweenThePointsEveryPathPasses) {
  // x, then either y (two positions long) or z w.
  const std::vector<QueryToken> tokens = {{"x", 0, 1}, {"y", 1, 2}, {"z", 1, 1}, {"w", 2, 1}};
  const FieldQuery all = Build(tokens, true);
  ASSERT_EQ(all.kind, Kind::kMust);
  ASSERT_EQ(all.clauses.size(), 2u);
  EXPECT_EQ(all.clauses[0].kind, Kind::kTerm);
  const FieldQuery& paths = all.clauses[1];
  ASSERT_EQ(paths.kind, Kind::kShould);
  ASSERT_EQ(paths.clauses.size(), 2u);
  EXPECT_EQ(paths.clauses[0].kind, Kind::kTerm);  // y
  EXPECT_EQ(paths.clauses[1].kind, Kind::kMust);  // z and w
  // Quoted, every path from start to end is a phrase of its own.
  const FieldQuery phrases = Build(tokens, false, true);
  ASSERT_EQ(phrases.kind, Kind::kShould);
  ASSERT_EQ(phrases.clauses.size(), 2u);
  EXPECT_EQ(phrases.clauses[0].kind, Kind::kPhrase);
  EXPECT_EQ(phrases.clauses[0].slots.size(), 2u);  // x y
  EXPECT_EQ(phrases.clauses[1].slots.size(), 3u);  // x z w
}

TEST(BuildFieldQueryTest, AGraphWithMorePathsThanClausesAllowedIsRefused) {
  // Shingles of two and three words over 20 words: the paths grow as Fibonacci's numbers.
  std::vector<QueryToken> tokens;
  for (std::uint32_t i = 0; i + 1 < 20; ++i) {
    tokens.push_back({"s2_" + std::to_string(i), i, 1});
    if (i + 2 < 20) tokens.push_back({"s3_" + std::to_string(i), i, 2});
  }
  EXPECT_EQ(BuildFieldQuery(tokens, false, false, 0).status().code(), ErrorCode::kBadValue);
}

TEST(BuildFieldQueryTest, ALongGraphIsBuiltSegmentBySegment) {
  // 50,000 words, every tenth pair also joined: a segment of two paths per ten words.
  std::vector<QueryToken> tokens;
  for (std::uint32_t i = 0; i < 50'000; ++i) {
    tokens.push_back({"w" + std::to_string(i), i, 1});
    if (i % 10 == 0 && i + 1 < 50'000) tokens.push_back({"j" + std::to_string(i), i, 2});
  }
  const FieldQuery query = Build(tokens, true);
  ASSERT_EQ(query.kind, Kind::kMust);
  EXPECT_EQ(query.clauses.size(), 45'000u);  // 5,000 joined pairs, 40,000 single words
  EXPECT_EQ(query.clauses.front().kind, Kind::kShould);
  EXPECT_EQ(query.clauses.back().kind, Kind::kTerm);
}

class ScoreFieldQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mapping_.root.dynamic = true;
    for (const char* t : {"new york city", "york new", "new new york", "the big apple city"}) {
      bson::Document document = bson::FromJson(std::string(R"({"t": ")") + t + "\"}").value();
      index_.Set(next_++, mapping_, document.view());
    }
  }

  const InvertedIndex::Field& Field() { return *index_.FieldAt("t"); }
  double Idf(const std::string& term) { return Field().Idf(Field().terms.at(term).size()); }
  ScoreMap Score(const FieldQuery& query) {
    ScoreMap scores;
    ScoreFieldQuery(
        Field(), query, [](std::size_t) { return false; }, &scores);
    return scores;
  }

  FullTextMapping mapping_;
  InvertedIndex index_;
  std::uint32_t next_ = 0;
};

TEST_F(ScoreFieldQueryTest, AMultiPhraseMatchesAnyTermOfEachSlotWithEveryTermsIdf) {
  FieldQuery phrase;
  phrase.kind = Kind::kPhrase;
  phrase.slots = {{{"new", "big"}, 0}, {{"york", "apple"}, 1}};
  const ScoreMap scores = Score(phrase);
  EXPECT_EQ(scores.size(), 3u);  // "york new" has neither phrase
  EXPECT_FALSE(scores.contains(1));
  const double idf = Idf("new") + Idf("big") + Idf("york") + Idf("apple");
  EXPECT_DOUBLE_EQ(scores.at(0), Field().Score(0, 1, idf));
  EXPECT_DOUBLE_EQ(scores.at(3), Field().Score(3, 1, idf));
}

TEST_F(ScoreFieldQueryTest, MustNeedsEveryClauseAndSynonymsShareOneFrequency) {
  const FieldQuery must = FieldQuery::Combined(
      Kind::kMust, {FieldQuery::Term("new"), FieldQuery::Synonym({"york", "city"})});
  const ScoreMap scores = Score(must);
  EXPECT_EQ(scores.size(), 3u);
  const double synonym_idf =
      Field().Idf(std::max(Field().terms.at("york").size(), Field().terms.at("city").size()));
  EXPECT_DOUBLE_EQ(scores.at(0),
                   Field().Score(0, 1, Idf("new")) + Field().Score(0, 2, synonym_idf));
  EXPECT_DOUBLE_EQ(scores.at(2),
                   Field().Score(2, 2, Idf("new")) + Field().Score(2, 1, synonym_idf));
}

TEST_F(ScoreFieldQueryTest, ASloppyPhraseFindsTermsOutOfPlace) {
  FieldQuery phrase = FieldQuery::Phrase({"new", "york"});
  EXPECT_FALSE(Score(phrase).contains(1));
  phrase.slop = 2;
  const ScoreMap sloppy = Score(phrase);
  ASSERT_TRUE(sloppy.contains(1));  // "york new": two moves apart
  EXPECT_DOUBLE_EQ(sloppy.at(1), Field().Score(1, 1.0 / 3.0, Idf("new") + Idf("york")));
}

}  // namespace
}  // namespace quarry::text
