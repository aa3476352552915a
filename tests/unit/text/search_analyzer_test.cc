#include "text/search_analyzer.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace quarry::text {
namespace {

using Terms = std::vector<std::pair<std::string, std::uint32_t>>;

Terms Analyze(std::string_view analyzer, std::string_view value) {
  Terms terms;
  SearchAnalyzer::Find(analyzer)->Analyze(value,
                                          [&](std::string_view term, std::uint32_t position) {
                                            terms.emplace_back(std::string(term), position);
                                          });
  return terms;
}

TEST(SearchAnalyzerTest, StandardSplitsAtWordBoundariesAndLowercases) {
  EXPECT_EQ(Analyze("lucene.standard", "The Quick-brown fox's 3.14 e-mail, don't!"),
            (Terms{{"the", 0},
                   {"quick", 1},
                   {"brown", 2},
                   {"fox's", 3},
                   {"3.14", 4},
                   {"e", 5},
                   {"mail", 6},
                   {"don't", 7}}));
  EXPECT_EQ(Analyze("lucene.standard", "ÉCOLE Straße"), (Terms{{"école", 0}, {"straße", 1}}));
  EXPECT_TRUE(Analyze("lucene.standard", " ... !? ").empty());
  // Han and Hiragana one character each, as Lucene's tokenizer; Katakana in runs.
  EXPECT_EQ(Analyze("lucene.standard", "東京タワーへ"),
            (Terms{{"東", 0}, {"京", 1}, {"タワー", 2}, {"へ", 3}}));
}

TEST(SearchAnalyzerTest, SplitsWordsLongerThan255Characters) {
  const std::string word(600, 'x');
  const Terms terms = Analyze("lucene.standard", word + " y");
  ASSERT_EQ(terms.size(), 4u);
  EXPECT_EQ(terms[0], (std::pair<std::string, std::uint32_t>{std::string(255, 'x'), 0}));
  EXPECT_EQ(terms[2], (std::pair<std::string, std::uint32_t>{std::string(90, 'x'), 2}));
  EXPECT_EQ(terms[3].first, "y");
  // The keyword analyzer keeps a value whole, however long.
  EXPECT_EQ(Analyze("lucene.keyword", word).size(), 1u);
}

TEST(SearchAnalyzerTest, SimpleKeepsRunsOfLetters) {
  EXPECT_EQ(Analyze("lucene.simple", "R2-D2 isn't HERE"),
            (Terms{{"r", 0}, {"d", 1}, {"isn", 2}, {"t", 3}, {"here", 4}}));
}

TEST(SearchAnalyzerTest, WhitespaceAndKeywordKeepCase) {
  EXPECT_EQ(Analyze("lucene.whitespace", " Hello,  World! "),
            (Terms{{"Hello,", 0}, {"World!", 1}}));
  EXPECT_EQ(Analyze("lucene.keyword", "New York"), (Terms{{"New York", 0}}));
}

TEST(SearchAnalyzerTest, EnglishDropsPossessivesAndStopWordsAndStemsByPorter) {
  // "the" and "of" leave their positions unused, so a phrase cannot skip them.
  EXPECT_EQ(Analyze("lucene.english", "The dog's running of the Bulls"),
            (Terms{{"dog", 1}, {"run", 2}, {"bull", 5}}));
  // Porter's original algorithm, not Snowball's English: "generously" -> "gener".
  EXPECT_EQ(Analyze("lucene.english", "generously"), (Terms{{"gener", 0}}));
}

TEST(SearchAnalyzerTest, LanguageAnalyzersStemInTheirLanguage) {
  EXPECT_EQ(Analyze("lucene.spanish", "Las tortillas"), (Terms{{"tortill", 1}}));
  EXPECT_EQ(Analyze("lucene.german", "Häuser"), (Terms{{"haus", 0}}));
}

TEST(SearchAnalyzerTest, FindsOnlyTheAnalyzersItHas) {
  EXPECT_EQ(SearchAnalyzer::Find("lucene.standard"), &SearchAnalyzer::Standard());
  EXPECT_EQ(SearchAnalyzer::Find("lucene.french")->name(), "lucene.french");
  EXPECT_EQ(SearchAnalyzer::Find("lucene.arabic"), nullptr);
  EXPECT_EQ(SearchAnalyzer::Find("standard"), nullptr);
  EXPECT_EQ(SearchAnalyzer::Find("myCustomAnalyzer"), nullptr);
}

}  // namespace
}  // namespace quarry::text
