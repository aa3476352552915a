#include "text/term_pattern.h"

#include <gtest/gtest.h>

namespace quarry::text {
namespace {

TermPattern Wildcard(std::string_view pattern) {
  StatusWith<TermPattern> compiled = TermPattern::Wildcard(pattern);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  return std::move(compiled).value();
}

TermPattern Regex(std::string_view pattern) {
  StatusWith<TermPattern> compiled = TermPattern::Regex(pattern);
  EXPECT_TRUE(compiled.ok()) << pattern << ": " << compiled.status().ToString();
  return std::move(compiled).value();
}

TEST(TermPatternTest, WildcardMatchesWholeTerms) {
  const TermPattern star = Wildcard("star*");
  EXPECT_TRUE(star.Matches("star"));
  EXPECT_TRUE(star.Matches("star wars"));
  EXPECT_FALSE(star.Matches("lone star"));
  EXPECT_EQ(star.literal_prefix(), "star");
  const TermPattern one = Wildcard("m?n");
  EXPECT_TRUE(one.Matches("man"));
  EXPECT_TRUE(one.Matches("mén"));  // one character, two bytes
  EXPECT_FALSE(one.Matches("moon"));
  EXPECT_EQ(one.literal_prefix(), "m");
  // Escaped, the wildcards and regex characters are themselves.
  const TermPattern literal = Wildcard(R"(what\?.(x)+)");
  EXPECT_TRUE(literal.Matches("what?.(x)+"));
  EXPECT_FALSE(literal.Matches("whatx.(x)+"));
  EXPECT_EQ(Wildcard("*ing").literal_prefix(), "");
  EXPECT_TRUE(Wildcard("*").Matches(""));
}

TEST(TermPatternTest, RegexFollowsLuceneSyntax) {
  EXPECT_TRUE(Regex("star.*").Matches("star trek"));
  EXPECT_FALSE(Regex("star").Matches("stars"));  // anchored at both ends
  EXPECT_TRUE(Regex("(sea|sky)[a-z]+").Matches("seashell"));
  EXPECT_FALSE(Regex("(sea|sky)[a-z]+").Matches("sea"));
  EXPECT_TRUE(Regex("[^0-9]{2,3}").Matches("ab"));
  EXPECT_FALSE(Regex("[^0-9]{2,3}").Matches("a1"));
  EXPECT_TRUE(Regex(R"(\d+-\w)").Matches("2024-x"));
  EXPECT_TRUE(Regex(R"("a.b"c?)").Matches("a.b"));
  EXPECT_FALSE(Regex(R"("a.b")").Matches("axb"));
  // ^ and $ are no anchors in Lucene: they are characters.
  EXPECT_TRUE(Regex("^a$").Matches("^a$"));
  EXPECT_TRUE(Regex("ab@").Matches("abc def"));
  EXPECT_FALSE(Regex("a#").Matches("a"));
  EXPECT_TRUE(Regex("caf.").Matches("café"));
  // A quoted string is one atom.
  EXPECT_TRUE(Regex(R"("ab"+)").Matches("abab"));
  EXPECT_FALSE(Regex(R"("ab"+)").Matches("abb"));
  EXPECT_TRUE(Regex(R"("ab"{2})").Matches("abab"));
  EXPECT_TRUE(Regex(R"(x"ab"*)").Matches("x"));
}

TEST(TermPatternTest, RegexPrefixesNarrowTheScan) {
  EXPECT_EQ(Regex("star.*").literal_prefix(), "star");
  EXPECT_EQ(Regex("stars?").literal_prefix(), "star");
  EXPECT_EQ(Regex("ab{0,2}c").literal_prefix(), "a");
  EXPECT_EQ(Regex("ab+").literal_prefix(), "ab");
  EXPECT_EQ(Regex("ab|cd").literal_prefix(), "");
  EXPECT_EQ(Regex(R"(a\.b.)").literal_prefix(), "a.b");
  EXPECT_EQ(Regex(R"(x"ab"*)").literal_prefix(), "x");
  EXPECT_EQ(Regex(R"(x"ab"+)").literal_prefix(), "xab");
}

TEST(TermPatternTest, RefusesMalformedAndUnsupportedRegexes) {
  EXPECT_EQ(TermPattern::Regex("(ab").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(TermPattern::Regex("[ab").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(TermPattern::Regex("[]").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(TermPattern::Regex("a{x}").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(TermPattern::Regex("\"ab").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(TermPattern::Regex("ab\\").status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(TermPattern::Regex("a&b").status().code(), ErrorCode::kNotImplemented);
  EXPECT_EQ(TermPattern::Regex("~a").status().code(), ErrorCode::kNotImplemented);
  EXPECT_EQ(TermPattern::Regex("<1-10>").status().code(), ErrorCode::kNotImplemented);
}

TEST(TermPatternTest, CatastrophicBacktrackingFailsToMatchInsteadOfRunningOn) {
  const TermPattern pattern = Regex("(a+)+b");
  EXPECT_FALSE(pattern.Matches(std::string(200, 'a')));
}

}  // namespace
}  // namespace quarry::text
