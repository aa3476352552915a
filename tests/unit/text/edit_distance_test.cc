#include "text/edit_distance.h"

#include <gtest/gtest.h>

#include <string>

#include "text/search_operator.h"

namespace quarry::text {
namespace {

int Distance(std::string_view a, std::string_view b, int limit = 2) {
  return EditDistance(CodePointsOf(a), CodePointsOf(b), limit);
}

TEST(EditDistanceTest, CountsEditsAndSwapsOverCodePoints) {
  EXPECT_EQ(Distance("dog", "dog"), 0);
  EXPECT_EQ(Distance("dog", "dgo"), 1);  // a swap of neighbours
  EXPECT_EQ(Distance("dog", "dogs"), 1);
  EXPECT_EQ(Distance("café", "cafe"), 1);       // é is one code point
  EXPECT_EQ(Distance("kitten", "sitting"), 3);  // three edits: past 2, so limit + 1
  EXPECT_EQ(Distance("kitten", "sitting", 5), 3);
  EXPECT_EQ(Distance("a", "abcdef"), 3);  // past the limit: limit + 1
}

TEST(EditDistanceTest, TermsPastTheMaximumMatchOnlyWhenEqual) {
  const std::string long_term(kMaxFuzzyTermLength + 1, 'a');
  std::string other = long_term;
  other.back() = 'b';
  EXPECT_EQ(Distance(long_term, long_term), 0);
  EXPECT_EQ(Distance(long_term, other), 3);
}

TEST(PathPatternTest, StarsMatchAnyRunIncludingDots) {
  EXPECT_TRUE(PathMatchesPattern("*", "a.b"));
  EXPECT_TRUE(PathMatchesPattern("title*", "titles"));
  EXPECT_TRUE(PathMatchesPattern("a.*.c", "a.b.x.c"));
  EXPECT_FALSE(PathMatchesPattern("a.*.c", "a.c"));
  EXPECT_FALSE(PathMatchesPattern("title", "titles"));
  // Many stars against a long path that almost matches: no exponential backtracking.
  const std::string path(5000, 'a');
  EXPECT_FALSE(PathMatchesPattern(std::string(40, '*') + "b" + std::string(40, '*') + "c", path));
}

}  // namespace
}  // namespace quarry::text
