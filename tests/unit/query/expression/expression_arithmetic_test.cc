// Arithmetic expressions: type promotion, null handling and mongod's errors.
#include <gtest/gtest.h>

#include "expression/expression_test_util.h"

namespace quarry::query {
namespace {

using testing::EvalErrorCode;
using testing::Evaluates;

ErrorCode Loc(int code) { return static_cast<ErrorCode>(code); }

TEST(ExpressionTest, AddOfIntsIsInt) { EXPECT_TRUE(Evaluates(R"({"$add": [1, 2]})", "{}", "3")); }

TEST(ExpressionTest, AddOfIntAndLongIsLong) {
  EXPECT_TRUE(Evaluates(R"({"$add": [1, {"$numberLong": "2"}]})", "{}", R"({"$numberLong": "3"})"));
}

TEST(ExpressionTest, AddOfIntAndDoubleIsDouble) {
  EXPECT_TRUE(Evaluates(R"({"$add": [1, 0.5]})", "{}", "1.5"));
}

TEST(ExpressionTest, AddOverflowingIntBecomesLong) {
  EXPECT_TRUE(Evaluates(R"({"$add": [2147483647, 1]})", "{}", R"({"$numberLong": "2147483648"})"));
}

TEST(ExpressionTest, AddOverflowingLongBecomesDouble) {
  EXPECT_TRUE(Evaluates(R"({"$add": [{"$numberLong": "9223372036854775807"}, 1]})", "{}",
                        "9.223372036854775808e18"));
}

TEST(ExpressionTest, AddWithDecimalIsExactDecimal) {
  EXPECT_TRUE(Evaluates(R"({"$add": [{"$numberDecimal": "0.1"}, {"$numberDecimal": "0.2"}]})", "{}",
                        R"({"$numberDecimal": "0.3"})"));
}

TEST(ExpressionTest, AddOfFieldsReadsTheDocument) {
  EXPECT_TRUE(Evaluates(R"({"$add": ["$a", "$b.c"]})", R"({"a": 2, "b": {"c": 5}})", "7"));
}

TEST(ExpressionTest, AddWithNullOrMissingIsNull) {
  EXPECT_TRUE(Evaluates(R"({"$add": [1, null]})", "{}", "null"));
  EXPECT_TRUE(Evaluates(R"({"$add": [1, "$nope"]})", "{}", "null"));
}

TEST(ExpressionTest, AddNumberToDateGivesDate) {
  EXPECT_TRUE(Evaluates(R"({"$add": [{"$date": {"$numberLong": "1000"}}, 500]})", "{}",
                        R"({"$date": {"$numberLong": "1500"}})"));
}

TEST(ExpressionTest, AddOfStringFailsWith16554) {
  EXPECT_EQ(EvalErrorCode(R"({"$add": [1, "x"]})"), Loc(16554));
}

TEST(ExpressionTest, AddOfTwoDatesFailsWith16612) {
  EXPECT_EQ(EvalErrorCode(R"({"$add": [{"$date": 1}, {"$date": 2}]})"), Loc(16612));
}

TEST(ExpressionTest, SubtractOfDatesIsMillisecondsAsLong) {
  EXPECT_TRUE(Evaluates(R"({"$subtract": [{"$date": {"$numberLong": "5000"}},
                                          {"$date": {"$numberLong": "2000"}}]})",
                        "{}", R"({"$numberLong": "3000"})"));
}

TEST(ExpressionTest, SubtractNeedsExactlyTwoArguments) {
  EXPECT_EQ(EvalErrorCode(R"({"$subtract": [1]})"), Loc(16020));
}

TEST(ExpressionTest, MultiplyPromotesLikeAdd) {
  EXPECT_TRUE(Evaluates(R"({"$multiply": [2, 3, 4]})", "{}", "24"));
  EXPECT_TRUE(
      Evaluates(R"({"$multiply": [65536, 65536]})", "{}", R"({"$numberLong": "4294967296"})"));
}

TEST(ExpressionTest, DivideAlwaysGivesDouble) {
  EXPECT_TRUE(Evaluates(R"({"$divide": [6, 3]})", "{}", "2.0"));
}

TEST(ExpressionTest, DivideByZeroFailsWith16608) {
  EXPECT_EQ(EvalErrorCode(R"({"$divide": [1, 0]})"), Loc(16608));
}

TEST(ExpressionTest, ModKeepsIntegerType) {
  EXPECT_TRUE(Evaluates(R"({"$mod": [7, 3]})", "{}", "1"));
  EXPECT_TRUE(Evaluates(R"({"$mod": [-7, 3]})", "{}", "-1"));
  EXPECT_EQ(EvalErrorCode(R"({"$mod": [7, 0]})"), Loc(16610));
}

TEST(ExpressionTest, AbsOfIntMinIsLong) {
  EXPECT_TRUE(Evaluates(R"({"$abs": -2147483648})", "{}", R"({"$numberLong": "2147483648"})"));
  EXPECT_TRUE(Evaluates(R"({"$abs": -2.5})", "{}", "2.5"));
}

TEST(ExpressionTest, CeilAndFloorKeepIntegers) {
  EXPECT_TRUE(Evaluates(R"({"$ceil": 2.1})", "{}", "3.0"));
  EXPECT_TRUE(Evaluates(R"({"$floor": -2.1})", "{}", "-3.0"));
  EXPECT_TRUE(Evaluates(R"({"$floor": 5})", "{}", "5"));
}

TEST(ExpressionTest, RoundIsHalfToEven) {
  EXPECT_TRUE(Evaluates(R"({"$round": [2.5, 0]})", "{}", "2.0"));
  EXPECT_TRUE(Evaluates(R"({"$round": [3.5, 0]})", "{}", "4.0"));
  EXPECT_TRUE(Evaluates(R"({"$round": [2.675, 2]})", "{}", "2.68"));
  EXPECT_TRUE(Evaluates(R"({"$round": [1250, -2]})", "{}", "1200"));
}

TEST(ExpressionTest, TruncDropsDigits) {
  EXPECT_TRUE(Evaluates(R"({"$trunc": [2.789, 1]})", "{}", "2.7"));
  EXPECT_TRUE(Evaluates(R"({"$trunc": -2.7})", "{}", "-2.0"));
}

TEST(ExpressionTest, SqrtOfNegativeFailsWith28714) {
  EXPECT_TRUE(Evaluates(R"({"$sqrt": 16})", "{}", "4.0"));
  EXPECT_EQ(EvalErrorCode(R"({"$sqrt": -1})"), Loc(28714));
}

TEST(ExpressionTest, PowOfIntsStaysIntegral) {
  EXPECT_TRUE(Evaluates(R"({"$pow": [2, 10]})", "{}", "1024"));
  EXPECT_TRUE(Evaluates(R"({"$pow": [2, 40]})", "{}", R"({"$numberLong": "1099511627776"})"));
  EXPECT_TRUE(Evaluates(R"({"$pow": [2, -1]})", "{}", "0.5"));
  EXPECT_EQ(EvalErrorCode(R"({"$pow": [0, -1]})"), Loc(28764));
}

TEST(ExpressionTest, LogarithmsCheckTheirDomain) {
  EXPECT_TRUE(Evaluates(R"({"$log10": 1000})", "{}", "3.0"));
  EXPECT_TRUE(Evaluates(R"({"$log": [8, 2]})", "{}", "3.0"));
  EXPECT_TRUE(Evaluates(R"({"$ln": 1})", "{}", "0.0"));
  EXPECT_EQ(EvalErrorCode(R"({"$ln": 0})"), Loc(28766));
  EXPECT_EQ(EvalErrorCode(R"({"$log": [8, 1]})"), Loc(28759));
}

TEST(ExpressionTest, ExpOfZeroIsOne) { EXPECT_TRUE(Evaluates(R"({"$exp": 0})", "{}", "1.0")); }

}  // namespace
}  // namespace quarry::query
