// String expressions.
#include <gtest/gtest.h>

#include "expression/expression_test_util.h"

namespace quarry::query {
namespace {

using testing::EvalErrorCode;
using testing::Evaluates;

ErrorCode Loc(int code) { return static_cast<ErrorCode>(code); }

TEST(ExpressionStringTest, ConcatJoinsStrings) {
  EXPECT_TRUE(Evaluates(R"({"$concat": ["a", "$b", "c"]})", R"({"b": "-"})", R"("a-c")"));
  EXPECT_TRUE(Evaluates(R"({"$concat": ["a", null]})", "{}", "null"));
  EXPECT_EQ(EvalErrorCode(R"({"$concat": ["a", 1]})"), Loc(16702));
}

TEST(ExpressionStringTest, SubstrBytesAndCodePoints) {
  EXPECT_TRUE(Evaluates(R"({"$substr": ["hello", 1, 3]})", "{}", R"("ell")"));
  EXPECT_TRUE(Evaluates(R"({"$substrBytes": ["hello", 2, -1]})", "{}", R"("llo")"));
  EXPECT_TRUE(Evaluates(R"({"$substrCP": ["héllo", 1, 2]})", "{}", R"("él")"));
  EXPECT_EQ(EvalErrorCode(R"({"$substrBytes": ["héllo", 2, 1]})"), Loc(28656));
}

TEST(ExpressionStringTest, CaseChangesCoerceNumbers) {
  EXPECT_TRUE(Evaluates(R"({"$toUpper": "abC"})", "{}", R"("ABC")"));
  EXPECT_TRUE(Evaluates(R"({"$toLower": "AbC"})", "{}", R"("abc")"));
  EXPECT_TRUE(Evaluates(R"({"$toLower": 12})", "{}", R"("12")"));
  EXPECT_TRUE(Evaluates(R"({"$toUpper": null})", "{}", R"("")"));
}

TEST(ExpressionStringTest, LengthsInBytesAndCodePoints) {
  EXPECT_TRUE(Evaluates(R"({"$strLenBytes": "héllo"})", "{}", "6"));
  EXPECT_TRUE(Evaluates(R"({"$strLenCP": "héllo"})", "{}", "5"));
  EXPECT_EQ(EvalErrorCode(R"({"$strLenBytes": 1})"), Loc(34473));
}

TEST(ExpressionStringTest, SplitBySeparator) {
  EXPECT_TRUE(Evaluates(R"({"$split": ["a,b,,c", ","]})", "{}", R"(["a", "b", "", "c"])"));
  EXPECT_EQ(EvalErrorCode(R"({"$split": ["abc", ""]})"), Loc(40087));
}

TEST(ExpressionStringTest, TrimDefaultsToWhitespace) {
  EXPECT_TRUE(Evaluates(R"({"$trim": {"input": "  hi \n"}})", "{}", R"("hi")"));
  EXPECT_TRUE(Evaluates(R"({"$ltrim": {"input": "xxhixx", "chars": "x"}})", "{}", R"("hixx")"));
  EXPECT_TRUE(Evaluates(R"({"$rtrim": {"input": "xxhixx", "chars": "x"}})", "{}", R"("xxhi")"));
}

TEST(ExpressionStringTest, IndexOfBytesFindsSubstring) {
  EXPECT_TRUE(Evaluates(R"({"$indexOfBytes": ["banana", "na"]})", "{}", "2"));
  EXPECT_TRUE(Evaluates(R"({"$indexOfBytes": ["banana", "na", 3]})", "{}", "4"));
  EXPECT_TRUE(Evaluates(R"({"$indexOfBytes": ["banana", "x"]})", "{}", "-1"));
  EXPECT_TRUE(Evaluates(R"({"$indexOfCP": ["héllo", "l"]})", "{}", "2"));
}

TEST(ExpressionStringTest, StrcasecmpIgnoresCase) {
  EXPECT_TRUE(Evaluates(R"({"$strcasecmp": ["abc", "ABC"]})", "{}", "0"));
  EXPECT_TRUE(Evaluates(R"({"$strcasecmp": ["abd", "ABC"]})", "{}", "1"));
}

TEST(ExpressionStringTest, RegexMatchUsesOptions) {
  EXPECT_TRUE(Evaluates(R"({"$regexMatch": {"input": "Hello", "regex": "^h", "options": "i"}})",
                        "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$regexMatch": {"input": "Hello", "regex": "^h"}})", "{}", "false"));
  EXPECT_TRUE(Evaluates(R"({"$regexMatch": {"input": null, "regex": "x"}})", "{}", "false"));
}

TEST(ExpressionStringTest, ReplaceOneAndAll) {
  EXPECT_TRUE(Evaluates(R"({"$replaceOne": {"input": "a.b.c", "find": ".", "replacement": "-"}})",
                        "{}", R"("a-b.c")"));
  EXPECT_TRUE(Evaluates(R"({"$replaceAll": {"input": "a.b.c", "find": ".", "replacement": "-"}})",
                        "{}", R"("a-b-c")"));
}

}  // namespace
}  // namespace quarry::query
