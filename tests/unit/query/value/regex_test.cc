// Regex: MongoDB's pattern options on PCRE2, and subjects PCRE2 would reject.
#include "query/value/regex.h"

#include <gtest/gtest.h>

#include <string_view>

namespace quarry::query {
namespace {

TEST(RegexTest, CompilesAndMatches) {
  StatusWith<Regex> regex = Regex::Compile("^a.c$", "i");
  ASSERT_TRUE(regex.ok());
  EXPECT_TRUE(regex.value().Matches("ABC"));
  EXPECT_FALSE(regex.value().Matches("abcd"));
  EXPECT_EQ(regex.value().pattern(), "^a.c$");
  EXPECT_EQ(regex.value().options(), "i");
}

TEST(RegexTest, InvalidUtf8SubjectDoesNotMatch) {
  StatusWith<Regex> regex = Regex::Compile(".", "");
  ASSERT_TRUE(regex.ok());
  EXPECT_FALSE(regex.value().Matches(std::string_view("\xff\xfe", 2)));
}

TEST(RegexTest, EmbeddedNullIsRejected) {
  EXPECT_FALSE(Regex::Compile(std::string_view("a\0b", 3), "").ok());
}

TEST(RegexTest, ManyCapturingGroupsStillMatch) {
  StatusWith<Regex> regex =
      Regex::Compile("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)(l)(m)(n)(o)(p)(q)(r)", "");
  ASSERT_TRUE(regex.ok());
  EXPECT_TRUE(regex.value().Matches("abcdefghijklmnopqr"));
}

}  // namespace
}  // namespace quarry::query
