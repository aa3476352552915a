// Comparison ($eq $ne $gt $gte $lt $lte $cmp), boolean ($and $or $not) and conditional ($cond
// $ifNull $switch) expressions.
#include "bson/compare.h"
#include "query/expression/expression_internal.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

enum class CmpOp { kEq, kNe, kGt, kGte, kLt, kLte, kCmp };

template <CmpOp Op>
StatusWith<Value> Compare(std::string_view, std::vector<Value>& args,
                          const bson::StringComparator* collator) {
  // Missing sorts with undefined, below null: {$eq: ["$missing", null]} is false, as in mongod.
  const int c = bson::CompareValues(args[0].view(), args[1].view(), collator);
  switch (Op) {
    case CmpOp::kEq:
      return Value::Bool(c == 0);
    case CmpOp::kNe:
      return Value::Bool(c != 0);
    case CmpOp::kGt:
      return Value::Bool(c > 0);
    case CmpOp::kGte:
      return Value::Bool(c >= 0);
    case CmpOp::kLt:
      return Value::Bool(c < 0);
    case CmpOp::kLte:
      return Value::Bool(c <= 0);
    case CmpOp::kCmp:
      return Value::Int32(c < 0 ? -1 : (c > 0 ? 1 : 0));
  }
  return Value();
}

StatusWith<Value> Not(std::string_view, std::vector<Value>& args) {
  return Value::Bool(!args[0].view().Truthy());
}

// $and and $or stop at the first operand that decides the result.
class AndOrExpression final : public Expression {
 public:
  AndOrExpression(bool is_and, std::vector<ExpressionPtr> operands)
      : is_and_(is_and), operands_(std::move(operands)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    for (const ExpressionPtr& operand : operands_) {
      QUARRY_ASSIGN_OR_RETURN(Value v, operand->Evaluate(ctx));
      bool truthy = v.view().Truthy();
      if (is_and_ && !truthy) return Value::Bool(false);
      if (!is_and_ && truthy) return Value::Bool(true);
    }
    return Value::Bool(is_and_);
  }

 private:
  bool is_and_;
  std::vector<ExpressionPtr> operands_;
};

StatusWith<ExpressionPtr> ParseAndOr(std::string_view name, bson::ValueView args,
                                     ParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands, ParseOperands(args, ctx));
  return ExpressionPtr(std::make_shared<AndOrExpression>(name == "$and", std::move(operands)));
}

class CondExpression final : public Expression {
 public:
  CondExpression(ExpressionPtr if_expr, ExpressionPtr then_expr, ExpressionPtr else_expr)
      : if_(std::move(if_expr)), then_(std::move(then_expr)), else_(std::move(else_expr)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value condition, if_->Evaluate(ctx));
    return condition.view().Truthy() ? then_->Evaluate(ctx) : else_->Evaluate(ctx);
  }

 private:
  ExpressionPtr if_;
  ExpressionPtr then_;
  ExpressionPtr else_;
};

StatusWith<ExpressionPtr> ParseCond(std::string_view name, bson::ValueView args,
                                    ParseContext& ctx) {
  if (args.type() == Type::kDocument) {
    bson::ValueView parts[3];
    for (const bson::Element& e : args.Document()) {
      if (e.key == "if") {
        parts[0] = e.value;
      } else if (e.key == "then") {
        parts[1] = e.value;
      } else if (e.key == "else") {
        parts[2] = e.value;
      } else {
        return LocationError(17083, "Unrecognized parameter to $cond: " + std::string(e.key));
      }
    }
    if (!parts[0].exists()) return LocationError(17080, "Missing 'if' parameter to $cond");
    if (!parts[1].exists()) return LocationError(17081, "Missing 'then' parameter to $cond");
    if (!parts[2].exists()) return LocationError(17082, "Missing 'else' parameter to $cond");
    ExpressionPtr parsed[3];
    for (int part_idx = 0; part_idx < 3; ++part_idx) {
      QUARRY_ASSIGN_OR_RETURN(parsed[part_idx], Expression::Parse(parts[part_idx], ctx));
    }
    return ExpressionPtr(std::make_shared<CondExpression>(parsed[0], parsed[1], parsed[2]));
  }
  QUARRY_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands, ParseOperands(args, ctx));
  QUARRY_RETURN_IF_ERROR(CheckArity(name, operands.size(), 3, 3));
  return ExpressionPtr(std::make_shared<CondExpression>(operands[0], operands[1], operands[2]));
}

class IfNullExpression final : public Expression {
 public:
  explicit IfNullExpression(std::vector<ExpressionPtr> operands) : operands_(std::move(operands)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    for (std::size_t op_idx = 0; op_idx + 1 < operands_.size(); ++op_idx) {
      QUARRY_ASSIGN_OR_RETURN(Value v, operands_[op_idx]->Evaluate(ctx));
      if (!v.nullish()) return v;
    }
    return operands_.back()->Evaluate(ctx);
  }

 private:
  std::vector<ExpressionPtr> operands_;
};

StatusWith<ExpressionPtr> ParseIfNull(std::string_view name, bson::ValueView args,
                                      ParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands, ParseOperands(args, ctx));
  QUARRY_RETURN_IF_ERROR(CheckArity(name, operands.size(), 2, -1));
  return ExpressionPtr(std::make_shared<IfNullExpression>(std::move(operands)));
}

class SwitchExpression final : public Expression {
 public:
  SwitchExpression(std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches,
                   ExpressionPtr default_expr)
      : branches_(std::move(branches)), default_(std::move(default_expr)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    for (const auto& [case_expr, then_expr] : branches_) {
      QUARRY_ASSIGN_OR_RETURN(Value condition, case_expr->Evaluate(ctx));
      if (condition.view().Truthy()) return then_expr->Evaluate(ctx);
    }
    if (default_ == nullptr) {
      return LocationError(40066,
                           "$switch could not find a matching branch for an input, and no "
                           "default was specified.");
    }
    return default_->Evaluate(ctx);
  }

 private:
  std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches_;
  ExpressionPtr default_;
};

StatusWith<ExpressionPtr> ParseSwitch(std::string_view, bson::ValueView args, ParseContext& ctx) {
  if (args.type() != Type::kDocument) {
    return LocationError(
        40060, "$switch requires an object as an argument, found: " + std::string(TypeName(args)));
  }
  std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches;
  ExpressionPtr default_expr;
  for (const bson::Element& e : args.Document()) {
    if (e.key == "branches") {
      if (e.value.type() != Type::kArray) {
        return LocationError(40061, "$switch expected an array for 'branches', found: " +
                                        std::string(TypeName(e.value)));
      }
      for (const bson::Element& branch : e.value.Document()) {
        if (branch.value.type() != Type::kDocument) {
          return LocationError(40062, "$switch expected each branch to be an object, found: " +
                                          std::string(TypeName(branch.value)));
        }
        ExpressionPtr case_expr;
        ExpressionPtr then_expr;
        for (const bson::Element& part : branch.value.Document()) {
          if (part.key == "case") {
            QUARRY_ASSIGN_OR_RETURN(case_expr, Expression::Parse(part.value, ctx));
          } else if (part.key == "then") {
            QUARRY_ASSIGN_OR_RETURN(then_expr, Expression::Parse(part.value, ctx));
          } else {
            return LocationError(
                40063, "$switch found an unknown argument to a branch: " + std::string(part.key));
          }
        }
        if (case_expr == nullptr) {
          return LocationError(40064, "$switch requires each branch have a 'case' expression");
        }
        if (then_expr == nullptr) {
          return LocationError(40065, "$switch requires each branch have a 'then' expression.");
        }
        branches.emplace_back(std::move(case_expr), std::move(then_expr));
      }
    } else if (e.key == "default") {
      QUARRY_ASSIGN_OR_RETURN(default_expr, Expression::Parse(e.value, ctx));
    } else {
      return LocationError(40067, "$switch found an unknown argument: " + std::string(e.key));
    }
  }
  if (branches.empty()) return LocationError(40068, "$switch requires at least one branch.");
  return ExpressionPtr(
      std::make_shared<SwitchExpression>(std::move(branches), std::move(default_expr)));
}

}  // namespace

void AddComparisonOperators(OperatorTable* table) {
  table->AddCollatedNary("$eq", 2, 2, Compare<CmpOp::kEq>);
  table->AddCollatedNary("$ne", 2, 2, Compare<CmpOp::kNe>);
  table->AddCollatedNary("$gt", 2, 2, Compare<CmpOp::kGt>);
  table->AddCollatedNary("$gte", 2, 2, Compare<CmpOp::kGte>);
  table->AddCollatedNary("$lt", 2, 2, Compare<CmpOp::kLt>);
  table->AddCollatedNary("$lte", 2, 2, Compare<CmpOp::kLte>);
  table->AddCollatedNary("$cmp", 2, 2, Compare<CmpOp::kCmp>);
  table->AddNary("$not", 1, 1, Not);
  table->Add("$and", ParseAndOr);
  table->Add("$or", ParseAndOr);
  table->Add("$cond", ParseCond);
  table->Add("$ifNull", ParseIfNull);
  table->Add("$switch", ParseSwitch);
}

}  // namespace quarry::query::expr_internal
