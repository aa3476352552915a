// $let, $literal, $rand and $meta.
#include <random>

#include "query/expression/expression_internal.h"

namespace quarry::query::expr_internal {
namespace {

// ---- $let ----

class LetExpression final : public Expression {
 public:
  LetExpression(std::vector<std::pair<VariableId, ExpressionPtr>> vars, ExpressionPtr in)
      : vars_(std::move(vars)), in_(std::move(in)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    // All values are computed before any is bound: `vars` see the outer scope only.
    std::vector<Value> values;
    values.reserve(vars_.size());
    for (const auto& var : vars_) {
      QUARRY_ASSIGN_OR_RETURN(Value v, var.second->Evaluate(ctx));
      values.push_back(std::move(v));
    }
    for (std::size_t var_idx = 0; var_idx < vars_.size(); ++var_idx) {
      ctx.SetVariable(vars_[var_idx].first, std::move(values[var_idx]));
    }
    return in_->Evaluate(ctx);
  }

 private:
  std::vector<std::pair<VariableId, ExpressionPtr>> vars_;
  ExpressionPtr in_;
};

StatusWith<ExpressionPtr> ParseLet(std::string_view name, bson::ValueView args, ParseContext& ctx) {
  if (args.type() != bson::Type::kDocument) {
    return LocationError(16874, "$let only supports an object as its argument");
  }
  bson::ValueView vars_spec;
  bson::ValueView in_spec;
  for (const bson::Element& e : args.Document()) {
    if (e.key == "vars") {
      vars_spec = e.value;
    } else if (e.key == "in") {
      in_spec = e.value;
    } else {
      return LocationError(
          16875, "Unrecognized parameter to " + std::string(name) + ": " + std::string(e.key));
    }
  }
  if (!vars_spec.exists()) return LocationError(16876, "Missing 'vars' parameter to $let");
  if (!in_spec.exists()) return LocationError(16877, "Missing 'in' parameter to $let");
  if (vars_spec.type() != bson::Type::kDocument) {
    return LocationError(10065, "invalid parameter: expected an object (vars)");
  }
  std::vector<std::pair<std::string, ExpressionPtr>> parsed;
  for (const bson::Element& e : vars_spec.Document()) {
    QUARRY_RETURN_IF_ERROR(ValidateVariableNameForWrite(e.key));
    QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(e.value, ctx));
    parsed.emplace_back(std::string(e.key), std::move(expr));
  }
  ctx.PushScope();
  std::vector<std::pair<VariableId, ExpressionPtr>> vars;
  for (auto& [var_name, expr] : parsed) {
    StatusWith<VariableId> slot = ctx.DefineVariable(var_name);
    if (!slot.ok()) {
      ctx.PopScope();
      return slot.status();
    }
    vars.emplace_back(slot.value(), std::move(expr));
  }
  StatusWith<ExpressionPtr> in = Expression::Parse(in_spec, ctx);
  ctx.PopScope();
  if (!in.ok()) return in.status();
  return ExpressionPtr(std::make_shared<LetExpression>(std::move(vars), std::move(in).value()));
}

StatusWith<ExpressionPtr> ParseLiteral(std::string_view, bson::ValueView args, ParseContext&) {
  return Expression::Constant(Value::Copy(args));
}

class RandExpression final : public Expression {
 public:
  StatusWith<Value> Evaluate(EvalContext&) const override {
    thread_local std::mt19937_64 engine{std::random_device{}()};
    return Value::Double(std::uniform_real_distribution<double>(0.0, 1.0)(engine));
  }
};

StatusWith<ExpressionPtr> ParseRand(std::string_view, bson::ValueView args, ParseContext&) {
  if (args.type() != bson::Type::kDocument || !args.Document().empty()) {
    return LocationError(10065, "invalid parameter: expected an object ($rand)");
  }
  return ExpressionPtr(std::make_shared<RandExpression>());
}

// {$meta: "vectorSearchScore"}: a value a stage attached to the document (missing if none).
class MetaExpression final : public Expression {
 public:
  explicit MetaExpression(std::string name) : name_(std::move(name)) {}
  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    const bool found = ctx.metadata() != nullptr && ctx.metadata()->values.contains(name_);
    // Only a $text search gives scores: a pipeline without one asks for what no stage makes.
    if (!found && name_ == "textScore") {
      return LocationError(40218, "query requires text score metadata, but it is not available");
    }
    return found ? ctx.metadata()->values.find(name_)->second : Value();
  }

 private:
  std::string name_;
};

StatusWith<ExpressionPtr> ParseMeta(std::string_view, bson::ValueView args, ParseContext&) {
  static const char* const kKnown[] = {"vectorSearchScore",
                                       "searchScore",
                                       "searchScoreDetails",
                                       "searchHighlights",
                                       "searchSequenceToken",
                                       "textScore",
                                       "randVal",
                                       "indexKey",
                                       "recordId",
                                       "sortKey",
                                       "geoNearDistance",
                                       "geoNearPoint"};
  if (args.type() == bson::Type::kString) {
    for (const char* known : kKnown) {
      if (args.String() == known) {
        return ExpressionPtr(std::make_shared<MetaExpression>(std::string(args.String())));
      }
    }
  }
  return LocationError(17308, "Unsupported argument to $meta: " + args.ToJson());
}

}  // namespace

void AddCoreOperators(OperatorTable* table) {
  table->Add("$meta", ParseMeta);
  table->Add("$let", ParseLet);
  table->Add("$literal", ParseLiteral);
  table->Add("$rand", ParseRand);
}

}  // namespace quarry::query::expr_internal
