// Expressions that bind a variable per array element: $filter $map $reduce.
#include "query/expression/expression_internal.h"
#include "query/value/value_arithmetic.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

// ---- $filter, $map, $reduce ----

class FilterExpression final : public Expression {
 public:
  FilterExpression(ExpressionPtr input, VariableId var, ExpressionPtr cond, ExpressionPtr limit)
      : input_(std::move(input)), var_(var), cond_(std::move(cond)), limit_(std::move(limit)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    std::int64_t limit = -1;
    if (limit_ != nullptr) {
      QUARRY_ASSIGN_OR_RETURN(Value l, limit_->Evaluate(ctx));
      if (!l.nullish()) {
        if (!ToInt64Exact(l.view(), &limit) || limit < INT32_MIN || limit > INT32_MAX) {
          return LocationError(327391,
                               "$filter: limit must be represented as a 32-bit integral "
                               "value: " +
                                   l.ToJson());
        }
        if (limit < 1) {
          return LocationError(327392,
                               "$filter: limit must be greater than 0: " + std::to_string(limit));
        }
      }
    }
    if (input.nullish()) return Value::Null();
    if (!input.IsArray()) {
      return LocationError(28651,
                           "input to $filter must be an array not " + std::string(TypeName(input)));
    }
    bson::ArrayBuilder out;
    for (const bson::Element& e : input.view().Document()) {
      ctx.SetVariable(var_, input.Child(e.value));
      QUARRY_ASSIGN_OR_RETURN(Value keep, cond_->Evaluate(ctx));
      if (keep.view().Truthy()) {
        out.Append(e.value);
        if (limit > 0 && static_cast<std::int64_t>(out.count()) >= limit) break;
      }
    }
    return Value::FromArray(std::move(out).Finish());
  }

 private:
  ExpressionPtr input_;
  VariableId var_;
  ExpressionPtr cond_;
  ExpressionPtr limit_;
};

// Parses `input` in the outer scope, then `as` (default "this") and the body in a new scope.
struct LoopParts {
  ExpressionPtr input;
  VariableId var = -1;
  ExpressionPtr body;
};

StatusWith<LoopParts> ParseLoop(bson::ValueView input, bson::ValueView as, bson::ValueView body,
                                ParseContext& ctx) {
  LoopParts parts;
  QUARRY_ASSIGN_OR_RETURN(parts.input, Expression::Parse(input, ctx));
  std::string name = "this";
  if (as.exists()) {
    if (as.type() != Type::kString) {
      return Status(ErrorCode::kFailedToParse, "'as' must be a string");
    }
    name = std::string(as.String());
  }
  ctx.PushScope();
  StatusWith<VariableId> var = ctx.DefineVariable(name);
  if (!var.ok()) {
    ctx.PopScope();
    return var.status();
  }
  parts.var = var.value();
  StatusWith<ExpressionPtr> parsed_body = Expression::Parse(body, ctx);
  ctx.PopScope();
  if (!parsed_body.ok()) return parsed_body.status();
  parts.body = std::move(parsed_body).value();
  return parts;
}

StatusWith<ExpressionPtr> ParseFilter(std::string_view name, bson::ValueView args,
                                      ParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(NamedArgs named,
                          ParseNamedArgs(name, args, {"input", "as", "cond", "limit"},
                                         {"input", "cond"}, 28646, 28647, 28648));
  QUARRY_ASSIGN_OR_RETURN(LoopParts parts,
                          ParseLoop(named.Get("input"), named.Get("as"), named.Get("cond"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr limit, ParseOptional(named.Get("limit"), ctx));
  return ExpressionPtr(std::make_shared<FilterExpression>(std::move(parts.input), parts.var,
                                                          std::move(parts.body), std::move(limit)));
}

class MapExpression final : public Expression {
 public:
  MapExpression(ExpressionPtr input, VariableId var, ExpressionPtr in)
      : input_(std::move(input)), var_(var), in_(std::move(in)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    if (input.nullish()) return Value::Null();
    if (!input.IsArray()) {
      return LocationError(16883,
                           "input to $map must be an array not " + std::string(TypeName(input)));
    }
    bson::ArrayBuilder out;
    for (const bson::Element& e : input.view().Document()) {
      ctx.SetVariable(var_, input.Child(e.value));
      QUARRY_ASSIGN_OR_RETURN(Value mapped, in_->Evaluate(ctx));
      if (mapped.missing()) {
        out.AppendNull();
      } else {
        out.Append(mapped.view());
      }
    }
    return Value::FromArray(std::move(out).Finish());
  }

 private:
  ExpressionPtr input_;
  VariableId var_;
  ExpressionPtr in_;
};

StatusWith<ExpressionPtr> ParseMap(std::string_view name, bson::ValueView args, ParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(NamedArgs named, ParseNamedArgs(name, args, {"input", "as", "in"},
                                                          {"input", "in"}, 16878, 16879, 16880));
  QUARRY_ASSIGN_OR_RETURN(LoopParts parts,
                          ParseLoop(named.Get("input"), named.Get("as"), named.Get("in"), ctx));
  return ExpressionPtr(
      std::make_shared<MapExpression>(std::move(parts.input), parts.var, std::move(parts.body)));
}

class ReduceExpression final : public Expression {
 public:
  ReduceExpression(ExpressionPtr input, ExpressionPtr initial, VariableId value_var,
                   VariableId this_var, ExpressionPtr in)
      : input_(std::move(input)),
        initial_(std::move(initial)),
        value_var_(value_var),
        this_var_(this_var),
        in_(std::move(in)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    if (input.nullish()) return Value::Null();
    if (!input.IsArray()) {
      return LocationError(40080,
                           "$reduce requires that 'input' be an array, found: " + input.ToJson());
    }
    QUARRY_ASSIGN_OR_RETURN(Value accumulated, initial_->Evaluate(ctx));
    for (const bson::Element& e : input.view().Document()) {
      ctx.SetVariable(value_var_, accumulated);
      ctx.SetVariable(this_var_, input.Child(e.value));
      QUARRY_ASSIGN_OR_RETURN(accumulated, in_->Evaluate(ctx));
    }
    return accumulated;
  }

 private:
  ExpressionPtr input_;
  ExpressionPtr initial_;
  VariableId value_var_;
  VariableId this_var_;
  ExpressionPtr in_;
};

StatusWith<ExpressionPtr> ParseReduce(std::string_view name, bson::ValueView args,
                                      ParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(NamedArgs named,
                          ParseNamedArgs(name, args, {"input", "initialValue", "in"},
                                         {"input", "initialValue", "in"}, 40075, 40076, 40077));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr input, Expression::Parse(named.Get("input"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr initial, Expression::Parse(named.Get("initialValue"), ctx));
  ctx.PushScope();
  StatusWith<VariableId> value_var = ctx.DefineVariable("value");
  StatusWith<VariableId> this_var = ctx.DefineVariable("this");
  StatusWith<ExpressionPtr> in = Expression::Parse(named.Get("in"), ctx);
  ctx.PopScope();
  if (!in.ok()) return in.status();
  return ExpressionPtr(std::make_shared<ReduceExpression>(std::move(input), std::move(initial),
                                                          value_var.value(), this_var.value(),
                                                          std::move(in).value()));
}

}  // namespace

void AddLoopOperators(OperatorTable* table) {
  table->Add("$filter", ParseFilter);
  table->Add("$map", ParseMap);
  table->Add("$reduce", ParseReduce);
}

}  // namespace quarry::query::expr_internal
