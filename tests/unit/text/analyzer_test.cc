#include "text/analyzer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/language.h"

namespace quarry::text {
namespace {

const Language& English() { return *FindLanguage("english"); }
const Language& None() { return *FindLanguage("none"); }

std::vector<std::string> Terms(std::string_view raw, const Language& language,
                               Sensitivity sensitivity = {}, bool drop_stop_words = true) {
  std::vector<std::string> terms;
  ForEachTerm(raw, language, sensitivity, drop_stop_words,
              [&](const std::string& term) { terms.push_back(term); });
  return terms;
}

TEST(LanguageTest, FindsNamesAndCodesInAnyCase) {
  EXPECT_EQ(FindLanguage("english"), FindLanguage("EN"));
  EXPECT_EQ(FindLanguage("English"), FindLanguage("en"));
  EXPECT_NE(FindLanguage("none"), nullptr);
  EXPECT_EQ(FindLanguage("klingon"), nullptr);
  EXPECT_EQ(FindLanguage("ES"), FindLanguage("spanish"));
  EXPECT_EQ(FindLanguage("nb")->name, "norwegian");
  EXPECT_EQ(FindLanguage("pt-BR"), nullptr);
}

TEST(AnalyzerTest, OtherLanguagesStemAndDropTheirOwnStopWords) {
  EXPECT_EQ(Terms("Las tortillas de mi abuela", *FindLanguage("spanish")),
            (std::vector<std::string>{"tortill", "abuel"}));
  EXPECT_EQ(Terms("Nous parlâmes du café", *FindLanguage("french")),
            (std::vector<std::string>{"parl", "caf"}));
  EXPECT_EQ(Terms("Die Häuser und der Garten", *FindLanguage("german")),
            (std::vector<std::string>{"haus", "gart"}));
  // Only English keeps the apostrophe in a word.
  EXPECT_EQ(Terms("l'amour", *FindLanguage("french")), (std::vector<std::string>{"amour"}));
}

TEST(AnalyzerTest, TurkishLowercasesTheDotlessI) {
  std::vector<std::string> lowered;
  auto collect = [&](std::string_view word, std::string_view) { lowered.emplace_back(word); };
  ForEachToken("IŞIK İz", *FindLanguage("turkish"), collect);
  ForEachToken("IŞIK", English(), collect);
  EXPECT_EQ(lowered, (std::vector<std::string>{"ışık", "iz", "işik"}));
}

TEST(AnalyzerTest, EnglishStemsAndDropsStopWords) {
  EXPECT_EQ(Terms("Do you see Mark's dog running?", English(), {}, false),
            (std::vector<std::string>{"do", "you", "see", "mark", "dog", "run"}));
  EXPECT_EQ(Terms("Do you see Mark's dog running?", English()),
            (std::vector<std::string>{"see", "mark", "dog", "run"}));
  EXPECT_TRUE(Terms("the and of can't", English()).empty());
}

TEST(AnalyzerTest, SplitsAtPunctuationButNotUnderscores) {
  EXPECT_EQ(Terms("foo-bar,baz.qux", None()),
            (std::vector<std::string>{"foo", "bar", "baz", "qux"}));
  EXPECT_EQ(Terms("foo_bar", None()), (std::vector<std::string>{"foo_bar"}));
  // Only English keeps the apostrophe in a word.
  EXPECT_EQ(Terms("C'est", None()), (std::vector<std::string>{"c", "est"}));
  EXPECT_EQ(Terms("«quoted» — dash", None()), (std::vector<std::string>{"quoted", "dash"}));
}

TEST(AnalyzerTest, FoldsCaseAndDiacriticsUnlessSensitive) {
  EXPECT_EQ(Terms("ÉCOLE Café", None()), (std::vector<std::string>{"ecole", "cafe"}));
  EXPECT_EQ(Terms("ÉCOLE Café", None(), {.case_sensitive = true}),
            (std::vector<std::string>{"ECOLE", "Cafe"}));
  EXPECT_EQ(Terms("ÉCOLE Café", None(), {.diacritic_sensitive = true}),
            (std::vector<std::string>{"école", "café"}));
  // Letters without a decomposition keep their form.
  EXPECT_EQ(Terms("Øl", None()), (std::vector<std::string>{"øl"}));
}

TEST(AnalyzerTest, InvalidUtf8IsADelimiter) {
  EXPECT_EQ(Terms(std::string("ab\xFF"
                              "cd"),
                  None()),
            (std::vector<std::string>{"ab", "cd"}));
}

TEST(AnalyzerTest, NormalizeKeepsDelimitersForPhrases) {
  EXPECT_EQ(Normalize("Crème Brûlée!", {}), "creme brulee!");
  EXPECT_EQ(Normalize("Crème Brûlée!", {.case_sensitive = true}), "Creme Brulee!");
}

}  // namespace
}  // namespace quarry::text
