// Field paths, variables, literals, comparison, boolean and conditional expressions, and parse
// errors.
#include <gtest/gtest.h>

#include "expression/expression_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;
using testing::EvalErrorCode;
using testing::Evaluates;

ErrorCode Loc(int code) { return static_cast<ErrorCode>(code); }

TEST(ExpressionTest, FieldPathReadsNestedField) {
  EXPECT_TRUE(Evaluates(R"("$a.b")", R"({"a": {"b": 5}})", "5"));
}

TEST(ExpressionTest, FieldPathOverArrayOfDocumentsGivesArray) {
  EXPECT_TRUE(Evaluates(R"("$a.b")", R"({"a": [{"b": 1}, {"c": 2}, 3, {"b": [4]}]})", "[1, [4]]"));
}

TEST(ExpressionTest, MissingFieldIsMissing) {
  EXPECT_TRUE(Evaluates(R"("$nope")", "{}", "missing"));
  EXPECT_TRUE(Evaluates(R"("$a.b")", R"({"a": 1})", "missing"));
}

TEST(ExpressionTest, RootAndCurrentAreTheDocument) {
  EXPECT_TRUE(Evaluates(R"("$$ROOT")", R"({"a": 1})", R"({"a": 1})"));
  EXPECT_TRUE(Evaluates(R"("$$CURRENT.a")", R"({"a": 1})", "1"));
}

TEST(ExpressionTest, RemoveIsMissing) { EXPECT_TRUE(Evaluates(R"("$$REMOVE")", "{}", "missing")); }

TEST(ExpressionTest, NowIsADate) {
  StatusWith<Value> v = testing::TryEval(R"("$$NOW")");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value().type(), bson::Type::kDate);
}

TEST(ExpressionTest, UndefinedVariableFailsWith17276) {
  EXPECT_EQ(EvalErrorCode(R"("$$nope")"), Loc(17276));
}

TEST(ExpressionTest, DollarAloneIsNotAFieldPath) { EXPECT_EQ(EvalErrorCode(R"("$")"), Loc(16872)); }

TEST(ExpressionTest, LiteralKeepsDollarStrings) {
  EXPECT_TRUE(Evaluates(R"({"$literal": "$a"})", R"({"a": 1})", R"("$a")"));
  EXPECT_TRUE(Evaluates(R"({"$literal": {"$add": 1}})", "{}", R"({"$add": 1})"));
}

TEST(ExpressionTest, ObjectLiteralEvaluatesFieldsAndDropsMissing) {
  EXPECT_TRUE(Evaluates(R"({"x": "$a", "y": "$nope", "z": {"$add": [1, 1]}})", R"({"a": 7})",
                        R"({"x": 7, "z": 2})"));
}

TEST(ExpressionTest, ArrayLiteralTurnsMissingIntoNull) {
  EXPECT_TRUE(Evaluates(R"(["$a", "$nope"])", R"({"a": 7})", "[7, null]"));
}

TEST(ExpressionTest, UnknownOperatorFailsWithInvalidPipelineOperator) {
  StatusWith<Value> v = testing::TryEval(R"({"$foo": 1})");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), ErrorCode::kInvalidPipelineOperator);
  EXPECT_EQ(v.status().reason(), "Unrecognized expression '$foo'");
}

TEST(ExpressionTest, OperatorObjectWithTwoFieldsFailsWith15983) {
  EXPECT_EQ(EvalErrorCode(R"({"$add": [1], "$sub": 2})"), Loc(15983));
}

TEST(ExpressionTest, LetBindsVariables) {
  EXPECT_TRUE(
      Evaluates(R"({"$let": {"vars": {"x": 2, "y": "$a"}, "in": {"$multiply": ["$$x", "$$y"]}}})",
                R"({"a": 5})", "10"));
}

TEST(ExpressionTest, LetRejectsUppercaseVariableNames) {
  EXPECT_EQ(EvalErrorCode(R"({"$let": {"vars": {"X": 1}, "in": 1}})"), Loc(16867));
}

TEST(ExpressionTest, LetVariablesAreScoped) {
  EXPECT_EQ(EvalErrorCode(R"([{"$let": {"vars": {"x": 1}, "in": "$$x"}}, "$$x"])"), Loc(17276));
}

TEST(ExpressionTest, CommandLetConstantsAreVisible) {
  ParseContext parse;
  ASSERT_TRUE(DefineLetConstants(Doc(R"({"x": "foo", "y": {"$literal": "$bar"}})"), &parse).ok());
  bson::Document spec = Doc(R"({"v": {"$concat": ["$$x", "$$y"]}})");
  StatusWith<ExpressionPtr> expr = Expression::Parse(spec.Get("v"), parse);
  ASSERT_TRUE(expr.ok()) << expr.status().ToString();
  EvalContext ctx;
  StatusWith<Value> v = EvaluateOn(*expr.value(), bson::Document(), ctx);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(testing::SameValue(v.value(), R"("foo$bar")"));
}

TEST(ExpressionTest, ComparisonsUseTypeOrder) {
  EXPECT_TRUE(Evaluates(R"({"$eq": [1, 1.0]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$gt": ["a", 5]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$lt": [null, 0]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$cmp": [2, 1]})", "{}", "1"));
  EXPECT_TRUE(Evaluates(R"({"$ne": ["$a", 2]})", R"({"a": 1})", "true"));
}

TEST(ExpressionTest, MissingIsNotEqualToNull) {
  EXPECT_TRUE(Evaluates(R"({"$eq": ["$nope", null]})", "{}", "false"));
}

TEST(ExpressionTest, AndOrNotUseTruthiness) {
  EXPECT_TRUE(Evaluates(R"({"$and": [1, "x", true]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$and": [1, 0]})", "{}", "false"));
  EXPECT_TRUE(Evaluates(R"({"$or": [null, "$nope", 0]})", "{}", "false"));
  EXPECT_TRUE(Evaluates(R"({"$not": [null]})", "{}", "true"));
  EXPECT_TRUE(Evaluates(R"({"$and": []})", "{}", "true"));
}

TEST(ExpressionTest, AndStopsAtFirstFalse) {
  EXPECT_TRUE(Evaluates(R"({"$and": [false, {"$divide": [1, 0]}]})", "{}", "false"));
}

TEST(ExpressionTest, CondArrayAndObjectForms) {
  EXPECT_TRUE(
      Evaluates(R"({"$cond": [{"$gt": ["$a", 1]}, "big", "small"]})", R"({"a": 2})", R"("big")"));
  EXPECT_TRUE(Evaluates(R"({"$cond": {"if": false, "then": 1, "else": 2}})", "{}", "2"));
  EXPECT_EQ(EvalErrorCode(R"({"$cond": {"if": true, "then": 1}})"), Loc(17082));
}

TEST(ExpressionTest, IfNullReturnsFirstNonNull) {
  EXPECT_TRUE(Evaluates(R"({"$ifNull": ["$nope", null, "x"]})", "{}", R"("x")"));
  EXPECT_TRUE(Evaluates(R"({"$ifNull": ["$a", "x"]})", R"({"a": 0})", "0"));
}

TEST(ExpressionTest, SwitchPicksFirstTrueBranch) {
  const char* expr = R"({"$switch": {"branches": [{"case": {"$lt": ["$a", 0]}, "then": "neg"},
                                                  {"case": {"$gt": ["$a", 0]}, "then": "pos"}],
                                     "default": "zero"}})";
  EXPECT_TRUE(Evaluates(expr, R"({"a": 5})", R"("pos")"));
  EXPECT_TRUE(Evaluates(expr, R"({"a": 0})", R"("zero")"));
}

TEST(ExpressionTest, SwitchWithoutMatchOrDefaultFailsWith40066) {
  EXPECT_EQ(EvalErrorCode(R"({"$switch": {"branches": [{"case": false, "then": 1}]}})"),
            Loc(40066));
}

TEST(ExpressionTest, SumAvgMinMaxOverArrays) {
  EXPECT_TRUE(Evaluates(R"({"$sum": "$a"})", R"({"a": [1, 2, "x", 3]})", "6"));
  EXPECT_TRUE(Evaluates(R"({"$sum": [1, 2.5]})", "{}", "3.5"));
  EXPECT_TRUE(Evaluates(R"({"$avg": "$a"})", R"({"a": [1, 2]})", "1.5"));
  EXPECT_TRUE(Evaluates(R"({"$max": "$a"})", R"({"a": [1, 7, 3]})", "7"));
  EXPECT_TRUE(Evaluates(R"({"$min": [4, null, 2]})", "{}", "2"));
  EXPECT_TRUE(Evaluates(R"({"$avg": []})", "{}", "null"));
}

}  // namespace
}  // namespace quarry::query
