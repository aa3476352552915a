// Type, conversion and date expressions.
#include <gtest/gtest.h>

#include "expression/expression_test_util.h"

namespace quarry::query {
namespace {

using testing::EvalErrorCode;
using testing::Evaluates;

ErrorCode Loc(int code) { return static_cast<ErrorCode>(code); }

TEST(ExpressionTypeTest, TypeNamesValues) {
  EXPECT_TRUE(Evaluates(R"({"%type": "$a"})", R"({"a": 1})", R"("int")"));
  EXPECT_TRUE(Evaluates(R"({"%type": "$a"})", R"({"a": {"$numberLong": "1"}})", R"("long")"));
  EXPECT_TRUE(Evaluates(R"({"%type": "$nope"})", "{}", R"("missing")"));
  EXPECT_TRUE(Evaluates(R"({"%type": [[1]]})", "{}", R"("array")"));
  EXPECT_TRUE(Evaluates(R"({"$isNumber": 1.5})", "{}", "true"));
}

TEST(ExpressionTypeTest, ToStringFormatsNumbersAndDates) {
  EXPECT_TRUE(Evaluates(R"({"$toString": 1.5})", "{}", R"("1.5")"));
  EXPECT_TRUE(Evaluates(R"({"$toString": 42})", "{}", R"("42")"));
  EXPECT_TRUE(Evaluates(R"({"$toString": true})", "{}", R"("true")"));
  EXPECT_TRUE(Evaluates(R"({"$toString": {"$date": {"$numberLong": "0"}}})", "{}",
                        R"("1970-01-01T00:00:00.000Z")"));
  EXPECT_TRUE(Evaluates(R"({"$toString": {"$oid": "507f1f77bcf86cd799439011"}})", "{}",
                        R"("507f1f77bcf86cd799439011")"));
}

TEST(ExpressionTypeTest, ToIntParsesAndTruncates) {
  EXPECT_TRUE(Evaluates(R"({"$toInt": "42"})", "{}", "42"));
  EXPECT_TRUE(Evaluates(R"({"$toInt": 2.9})", "{}", "2"));
  EXPECT_TRUE(Evaluates(R"({"$toInt": null})", "{}", "null"));
  EXPECT_EQ(EvalErrorCode(R"({"$toInt": "4.5"})"), ErrorCode::kConversionFailure);
  EXPECT_EQ(EvalErrorCode(R"({"$toInt": 1e20})"), ErrorCode::kConversionFailure);
}

TEST(ExpressionTypeTest, ToLongDoubleDecimalBool) {
  EXPECT_TRUE(Evaluates(R"({"$toLong": "5"})", "{}", R"({"$numberLong": "5"})"));
  EXPECT_TRUE(Evaluates(R"({"$toDouble": "2.5"})", "{}", "2.5"));
  EXPECT_TRUE(Evaluates(R"({"$toDecimal": 5})", "{}", R"({"$numberDecimal": "5"})"));
  EXPECT_TRUE(
      Evaluates(R"({"$toDecimal": 2.5})", "{}", R"({"$numberDecimal": "2.50000000000000"})"));
  EXPECT_TRUE(Evaluates(R"({"$toBool": 0})", "{}", "false"));
  EXPECT_TRUE(Evaluates(R"({"$toBool": ""})", "{}", "true"));
}

TEST(ExpressionTypeTest, ToObjectIdAndToDate) {
  EXPECT_TRUE(Evaluates(R"({"$toObjectId": "507f1f77bcf86cd799439011"})", "{}",
                        R"({"$oid": "507f1f77bcf86cd799439011"})"));
  EXPECT_TRUE(Evaluates(R"({"$toDate": "2021-02-03T04:05:06.789Z"})", "{}",
                        R"({"$date": "2021-02-03T04:05:06.789Z"})"));
  EXPECT_TRUE(Evaluates(R"({"$toDate": {"$numberLong": "86400000"}})", "{}",
                        R"({"$date": "1970-01-02T00:00:00Z"})"));
  EXPECT_EQ(EvalErrorCode(R"({"$toObjectId": "xyz"})"), ErrorCode::kConversionFailure);
}

TEST(ExpressionTypeTest, ConvertUsesOnErrorAndOnNull) {
  EXPECT_TRUE(
      Evaluates(R"({"$convert": {"input": "abc", "to": "int", "onError": -1}})", "{}", "-1"));
  EXPECT_TRUE(Evaluates(R"({"$convert": {"input": null, "to": "int", "onNull": 0}})", "{}", "0"));
  EXPECT_TRUE(
      Evaluates(R"({"$convert": {"input": "7", "to": 18}})", "{}", R"({"$numberLong": "7"})"));
}

TEST(ExpressionDateTest, PartsOfADate) {
  const char* doc = R"({"d": {"$date": "2024-02-29T13:45:30.250Z"}})";
  EXPECT_TRUE(Evaluates(R"({"$year": "$d"})", doc, "2024"));
  EXPECT_TRUE(Evaluates(R"({"$month": "$d"})", doc, "2"));
  EXPECT_TRUE(Evaluates(R"({"$dayOfMonth": "$d"})", doc, "29"));
  EXPECT_TRUE(Evaluates(R"({"$hour": "$d"})", doc, "13"));
  EXPECT_TRUE(Evaluates(R"({"$minute": "$d"})", doc, "45"));
  EXPECT_TRUE(Evaluates(R"({"$second": "$d"})", doc, "30"));
  EXPECT_TRUE(Evaluates(R"({"$millisecond": "$d"})", doc, "250"));
  EXPECT_TRUE(Evaluates(R"({"$dayOfWeek": "$d"})", doc, "5"));  // a Thursday
  EXPECT_TRUE(Evaluates(R"({"$dayOfYear": "$d"})", doc, "60"));
}

TEST(ExpressionDateTest, TimezoneOffsetShiftsParts) {
  EXPECT_TRUE(Evaluates(R"({"$hour": {"date": "$d", "timezone": "+05:30"}})",
                        R"({"d": {"$date": "2024-01-01T20:00:00Z"}})", "1"));
}

TEST(ExpressionDateTest, NonDateFailsWith16006) {
  EXPECT_EQ(EvalErrorCode(R"({"$year": "x"})"), Loc(16006));
  EXPECT_TRUE(Evaluates(R"({"$year": null})", "{}", "null"));
}

TEST(ExpressionDateTest, DateToStringWithFormats) {
  const char* doc = R"({"d": {"$date": "2024-02-29T13:45:30.250Z"}})";
  EXPECT_TRUE(
      Evaluates(R"({"$dateToString": {"date": "$d"}})", doc, R"("2024-02-29T13:45:30.250Z")"));
  EXPECT_TRUE(Evaluates(R"({"$dateToString": {"date": "$d", "format": "%Y/%m/%d %H:%M"}})", doc,
                        R"("2024/02/29 13:45")"));
  EXPECT_TRUE(
      Evaluates(R"({"$dateToString": {"date": "$nope", "onNull": "none"}})", doc, R"("none")"));
  EXPECT_EQ(EvalErrorCode(R"({"$dateToString": {"date": "$d", "format": "%Q"}})", doc), Loc(18536));
}

}  // namespace
}  // namespace quarry::query
