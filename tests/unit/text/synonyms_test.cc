#include "text/synonyms.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "bson/json.h"
#include "text/full_text_mapping.h"
#include "text/inverted_index.h"
#include "text/synonym_query.h"

namespace quarry::text {
namespace {

Status AddJson(SynonymMap* map, std::string_view json) {
  bson::Document document = bson::FromJson(json).value();
  return map->Add(document.view());
}

std::vector<std::vector<std::string>> Paths(const SynonymSegment& segment) { return segment.paths; }

TEST(SynonymMapTest, EquivalentAndExplicitMappings) {
  SynonymMap map(&SearchAnalyzer::Standard());
  ASSERT_TRUE(
      AddJson(&map, R"({"mappingType": "equivalent", "synonyms": ["Fast", "quick"]})").ok());
  ASSERT_TRUE(AddJson(&map, R"({"mappingType": "explicit", "input": ["motor vehicle"],
                                "synonyms": ["car"], "other": 1})")
                  .ok());
  const std::vector<SynonymSegment> segments =
      map.Expand({"a", "fast", "motor", "vehicle", "motor", "quick"});
  ASSERT_EQ(segments.size(), 5u);
  EXPECT_EQ(Paths(segments[0]), (std::vector<std::vector<std::string>>{{"a"}}));
  // The original first, then every synonym of the input, itself included.
  EXPECT_EQ(Paths(segments[1]),
            (std::vector<std::vector<std::string>>{{"fast"}, {"fast"}, {"quick"}}));
  // The longest input wins; an explicit mapping's synonyms stand for the input, not back.
  EXPECT_EQ(Paths(segments[2]),
            (std::vector<std::vector<std::string>>{{"motor", "vehicle"}, {"car"}}));
  EXPECT_EQ(Paths(segments[3]), (std::vector<std::vector<std::string>>{{"motor"}}));
  EXPECT_EQ(Paths(segments[4]),
            (std::vector<std::vector<std::string>>{{"quick"}, {"fast"}, {"quick"}}));
  EXPECT_EQ(map.Expand({"car"}).front().paths.size(), 1u);
}

TEST(SynonymMapTest, RefusesMalformedDocuments) {
  for (const char* json : {
           R"({"synonyms": ["a", "b"]})",
           R"({"mappingType": "Equivalent", "synonyms": ["a", "b"]})",
           R"({"mappingType": "equivalent", "synonyms": []})",
           R"({"mappingType": "equivalent", "synonyms": "a"})",
           R"({"mappingType": "equivalent", "synonyms": ["a", " "]})",
           R"({"mappingType": "equivalent", "synonyms": ["a", 3]})",
           R"({"mappingType": "equivalent", "synonyms": ["a", "!!"]})",
           R"({"mappingType": "explicit", "synonyms": ["a"]})",
           R"({"mappingType": "explicit", "input": [], "synonyms": ["a"]})",
       }) {
    SynonymMap map(&SearchAnalyzer::Standard());
    EXPECT_EQ(AddJson(&map, json).code(), ErrorCode::kBadValue) << json;
  }
  // A stop word inside a synonym leaves a gap Lucene's synonym parser refuses.
  SynonymMap english(SearchAnalyzer::Find("lucene.english"));
  EXPECT_EQ(AddJson(&english, R"({"mappingType": "equivalent",
                                  "synonyms": ["fast", "with speed in mind"]})")
                .code(),
            ErrorCode::kBadValue);
  EXPECT_TRUE(
      AddJson(&english, R"({"mappingType": "equivalent", "synonyms": ["fast", "speedy"]})").ok());
}

class SynonymQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mapping_.root.dynamic = true;
    for (const char* t : {"fast car", "quick car", "car", "with speed in mind car", "fast fast",
                          "red car", "motor vehicle"}) {
      bson::Document document = bson::FromJson(std::string(R"({"t": ")") + t + "\"}").value();
      index_.Set(next_++, mapping_, document.view());
    }
    ASSERT_TRUE(AddJson(&map_, R"({"mappingType": "equivalent",
                                   "synonyms": ["fast", "quick", "with speed in mind"]})")
                    .ok());
    ASSERT_TRUE(AddJson(&map_, R"({"mappingType": "explicit", "input": ["motor vehicle"],
                                   "synonyms": ["car"]})")
                    .ok());
  }

  static std::vector<QueryToken> Tokens(const std::vector<std::string>& terms) {
    std::vector<QueryToken> tokens;
    for (const std::string& term : terms) {
      tokens.push_back({term, static_cast<std::uint32_t>(tokens.size()), 1});
    }
    return tokens;
  }

  static void Score(const InvertedIndex::Field& field, const std::vector<std::string>& terms,
                    const SynonymMap& map, SynonymMatch match, ScoreMap* scores) {
    ASSERT_TRUE(ScoreWithSynonyms(
                    field, Tokens(terms), map, match, [](std::size_t) { return false; }, scores)
                    .ok());
  }

  std::map<std::uint32_t, double> Run(std::vector<std::string> tokens, SynonymMatch match) {
    ScoreMap scores;
    Score(Field(), tokens, map_, match, &scores);
    return {scores.begin(), scores.end()};
  }

  const InvertedIndex::Field& Field() { return *index_.FieldAt("t"); }
  double Df(const std::string& term) {
    auto it = Field().terms.find(term);
    return it == Field().terms.end() ? 0 : static_cast<double>(it->second.size());
  }
  double Idf(const std::string& term) { return Field().Idf(static_cast<std::size_t>(Df(term))); }
  double Bm25(std::uint32_t label, double tf, double idf) { return Field().Score(label, tf, idf); }

  FullTextMapping mapping_;
  InvertedIndex index_;
  SynonymMap map_{&SearchAnalyzer::Standard()};
  std::uint32_t next_ = 0;
};

TEST_F(SynonymQueryTest, WithoutMatchCriteriaTheQueryIsAPhraseOfAlternatives) {
  const auto got = Run({"fast", "car"}, SynonymMatch::kPhrase);
  // "fast car", "quick car" and "with speed in mind car"; not "car" or "red car".
  ASSERT_EQ(got.size(), 3u);
  const double idf = Idf("fast") + Idf("quick") + Idf("with") + Idf("speed") + Idf("in") +
                     Idf("mind") + Idf("car");
  for (const std::uint32_t label : {0u, 1u, 3u}) {
    EXPECT_DOUBLE_EQ(got.at(label), Bm25(label, 1, idf)) << label;
  }
  // A multi-token input: "motor vehicle" or "car" (the explicit mapping's synonym).
  const auto vehicle = Run({"motor", "vehicle"}, SynonymMatch::kPhrase);
  EXPECT_EQ(vehicle.size(), 6u);  // every document holding car, and "motor vehicle"
  EXPECT_TRUE(vehicle.contains(6));
  EXPECT_FALSE(vehicle.contains(4));
}

TEST_F(SynonymQueryTest, AnyJoinsASynonymQueryAndTheExactQueryBoostedTwice) {
  Run({}, SynonymMatch::kAny);
  const auto got = Run({"quick", "car"}, SynonymMatch::kAny);
  // quick's stretch has a multi-token alternative: a dismax over quick, fast, quick and the
  // phrase, tie breaker 0.1.
  auto dismax = [&](std::uint32_t label) {
    std::vector<double> parts;
    if (label == 0) parts = {Bm25(0, 1, Idf("fast"))};
    if (label == 1) parts = {Bm25(1, 1, Idf("quick")), Bm25(1, 1, Idf("quick"))};
    if (label == 3) {
      parts = {Bm25(3, 1, Idf("with") + Idf("speed") + Idf("in") + Idf("mind"))};
    }
    if (label == 4) parts = {Bm25(4, 2, Idf("fast"))};
    double best = 0, sum = 0;
    for (double p : parts) best = std::max(best, p), sum += p;
    return best + 0.1 * (sum - best);
  };
  auto car = [&](std::uint32_t label) { return label == 4 ? 0 : Bm25(label, 1, Idf("car")); };
  auto exact = [&](std::uint32_t label) {
    return 2 * ((label == 1 ? Bm25(1, 1, Idf("quick")) : 0) + car(label));
  };
  for (const std::uint32_t label : {0u, 1u, 2u, 3u, 4u, 5u}) {
    ASSERT_TRUE(got.contains(label)) << label;
    EXPECT_NEAR(got.at(label), dismax(label) + car(label) + exact(label), 1e-9) << label;
  }
  EXPECT_FALSE(got.contains(6));
}

TEST_F(SynonymQueryTest, AllNeedsEveryStretchAndSingleTokenSynonymsShareOneFrequency) {
  SynonymMap single(&SearchAnalyzer::Standard());
  ASSERT_TRUE(
      AddJson(&single, R"({"mappingType": "equivalent", "synonyms": ["fast", "quick"]})").ok());
  ScoreMap scores;
  Score(Field(), {"fast", "car"}, single, SynonymMatch::kAll, &scores);
  // Lucene's SynonymQuery over fast, fast (the original and its synonym) and quick: one term
  // whose frequency sums theirs, with the largest document frequency.
  const double df = std::max(Df("fast"), Df("quick"));
  const double synonym_idf = Field().Idf(static_cast<std::size_t>(df));
  EXPECT_EQ(scores.size(), 2u);  // fast car, quick car
  EXPECT_NEAR(scores.at(0),
              Bm25(0, 2, synonym_idf) + Bm25(0, 1, Idf("car")) +
                  2 * (Bm25(0, 1, Idf("fast")) + Bm25(0, 1, Idf("car"))),
              1e-9);
  EXPECT_NEAR(scores.at(1), Bm25(1, 1, synonym_idf) + Bm25(1, 1, Idf("car")), 1e-9);
  // Without a synonym, one token is a plain term query.
  ScoreMap plain;
  Score(Field(), {"red"}, single, SynonymMatch::kAny, &plain);
  EXPECT_DOUBLE_EQ(plain.at(5), Bm25(5, 1, Idf("red")));
}

TEST_F(SynonymQueryTest, APhraseWithSingleTokenSynonymsIsAMultiPhraseBesideTheExactPhrase) {
  SynonymMap single(&SearchAnalyzer::Standard());
  ASSERT_TRUE(
      AddJson(&single, R"({"mappingType": "equivalent", "synonyms": ["fast", "quick"]})").ok());
  ScoreMap scores;
  ASSERT_TRUE(
      ScorePhraseWithSynonyms(
          Field(), Tokens({"fast", "car"}), single, 0, [](std::size_t) { return false; }, &scores)
          .ok());
  // The first place holds fast twice (the original and its synonym): its idf counts twice, and
  // an occurrence of fast there counts twice, as Lucene's union of the two postings holds it.
  const double idf = 2 * Idf("fast") + Idf("quick") + Idf("car");
  EXPECT_EQ(scores.size(), 2u);
  EXPECT_NEAR(scores.at(0), Bm25(0, 2, idf) + 2 * Bm25(0, 1, Idf("fast") + Idf("car")), 1e-9);
  EXPECT_NEAR(scores.at(1), Bm25(1, 1, idf), 1e-9);
}

TEST_F(SynonymQueryTest, APhraseWithAMultiWordSynonymIsAPhrasePerPath) {
  ScoreMap scores;
  ASSERT_TRUE(
      ScorePhraseWithSynonyms(
          Field(), Tokens({"fast", "car"}), map_, 0, [](std::size_t) { return false; }, &scores)
          .ok());
  // Paths: fast car (twice), quick car, with speed in mind car; and fast car boosted twice.
  const double fast_car = Bm25(0, 1, Idf("fast") + Idf("car"));
  EXPECT_NEAR(scores.at(0), 2 * fast_car + 2 * fast_car, 1e-9);
  EXPECT_NEAR(scores.at(1), Bm25(1, 1, Idf("quick") + Idf("car")), 1e-9);
  EXPECT_NEAR(scores.at(3),
              Bm25(3, 1, Idf("with") + Idf("speed") + Idf("in") + Idf("mind") + Idf("car")), 1e-9);
  EXPECT_FALSE(scores.contains(5));
}

}  // namespace
}  // namespace quarry::text
