// Helpers for the expression tests: evaluate JSON expressions and compare the results exactly.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "query/expression/expression.h"
#include "query/value/value.h"
#include "query_test_util.h"

namespace quarry::query::testing {

inline StatusWith<Value> TryEval(std::string_view expr_json, std::string_view doc_json = "{}") {
  bson::Document spec = Doc("{\"v\": " + std::string(expr_json) + "}");
  ParseContext parse;
  StatusWith<ExpressionPtr> expr = Expression::Parse(spec.Get("v"), parse);
  if (!expr.ok()) return expr.status();
  bson::Document doc = Doc(doc_json);
  EvalContext ctx;
  return EvaluateOn(*expr.value(), doc, ctx);
}

// The error code of evaluating (or parsing) an expression; kOk when it succeeds.
inline ErrorCode EvalErrorCode(std::string_view expr_json, std::string_view doc_json = "{}") {
  StatusWith<Value> v = TryEval(expr_json, doc_json);
  return v.ok() ? ErrorCode::kOk : v.status().code();
}

inline ::testing::AssertionResult Evaluates(std::string_view expr_json, std::string_view doc_json,
                                            std::string_view expected_json) {
  StatusWith<Value> v = TryEval(expr_json, doc_json);
  if (!v.ok()) {
    return ::testing::AssertionFailure() << expr_json << " failed: " << v.status().ToString();
  }
  return SameValue(v.value(), expected_json) << " for " << expr_json;
}

}  // namespace quarry::query::testing
