// Helpers shared by the expression operator files: operand parsing, arity checks, named
// arguments, date conversions.
#include "query/expression/expression_internal.h"

namespace quarry::query::expr_internal {

void OperatorTable::Add(std::string_view name, OperatorParser parser) {
  OperatorEntry entry;
  entry.parser = parser;
  entries_[std::string(name)] = entry;
}

void OperatorTable::AddNary(std::string_view name, int min_args, int max_args, NaryFn fn) {
  OperatorEntry entry;
  entry.fn = fn;
  entry.min_args = min_args;
  entry.max_args = max_args;
  entries_[std::string(name)] = entry;
}

void OperatorTable::AddCollatedNary(std::string_view name, int min_args, int max_args,
                                    CollatedNaryFn fn) {
  OperatorEntry entry;
  entry.collated_fn = fn;
  entry.min_args = min_args;
  entry.max_args = max_args;
  entries_[std::string(name)] = entry;
}

const OperatorEntry* OperatorTable::Find(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

StatusWith<std::vector<ExpressionPtr>> ParseOperands(bson::ValueView args, ParseContext& ctx) {
  std::vector<ExpressionPtr> operands;
  if (args.type() == bson::Type::kArray) {
    for (const bson::Element& e : args.Document()) {
      QUARRY_ASSIGN_OR_RETURN(ExpressionPtr operand, Expression::Parse(e.value, ctx));
      operands.push_back(std::move(operand));
    }
    return operands;
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr operand, Expression::Parse(args, ctx));
  operands.push_back(std::move(operand));
  return operands;
}

Status CheckArity(std::string_view name, std::size_t count, int min_args, int max_args) {
  const auto n = static_cast<int>(count);
  if (min_args == max_args && n != min_args) {
    return LocationError(16020, "Expression " + std::string(name) + " takes exactly " +
                                    std::to_string(min_args) + " arguments. " + std::to_string(n) +
                                    " were passed in.");
  }
  if (n < min_args) {
    return LocationError(16020, "Expression " + std::string(name) + " takes at least " +
                                    std::to_string(min_args) + " arguments, and " +
                                    std::to_string(n) + " were passed in.");
  }
  if (max_args >= 0 && n > max_args) {
    return LocationError(16020, "Expression " + std::string(name) + " takes at most " +
                                    std::to_string(max_args) + " arguments, and " +
                                    std::to_string(n) + " were passed in.");
  }
  return Status::OK();
}

StatusWith<Value> NaryExpression::Evaluate(EvalContext& ctx) const {
  std::vector<Value> values;
  values.reserve(operands_.size());
  for (const ExpressionPtr& operand : operands_) {
    QUARRY_ASSIGN_OR_RETURN(Value v, operand->Evaluate(ctx));
    values.push_back(std::move(v));
  }
  if (collated_fn_ != nullptr) return collated_fn_(name_, values, collator_.get());
  return fn_(name_, values);
}

bool NaryExpression::IsConstant() const {
  for (const ExpressionPtr& operand : operands_) {
    if (!operand->IsConstant()) return false;
  }
  return true;
}

StatusWith<NamedArgs> ParseNamedArgs(std::string_view op, bson::ValueView args,
                                     const std::vector<std::string_view>& allowed,
                                     const std::vector<std::string_view>& required,
                                     int not_object_code, int unknown_code, int missing_code) {
  if (args.type() != bson::Type::kDocument) {
    return LocationError(not_object_code,
                         std::string(op) + " only supports an object as its argument");
  }
  NamedArgs named;
  for (const bson::Element& e : args.Document()) {
    bool known = false;
    for (std::string_view name : allowed) known = known || name == e.key;
    if (!known) {
      return LocationError(
          unknown_code, "Unrecognized parameter to " + std::string(op) + ": " + std::string(e.key));
    }
    named.values[std::string(e.key)] = e.value;
  }
  for (std::string_view name : required) {
    if (!named.Has(name)) {
      return LocationError(missing_code,
                           "Missing '" + std::string(name) + "' parameter to " + std::string(op));
    }
  }
  return named;
}

StatusWith<ExpressionPtr> ParseOptional(bson::ValueView spec, ParseContext& ctx) {
  if (!spec.exists()) return ExpressionPtr();
  return Expression::Parse(spec, ctx);
}

StatusWith<Value> EvaluateOptional(const ExpressionPtr& expr, EvalContext& ctx) {
  if (expr == nullptr) return Value();
  return expr->Evaluate(ctx);
}

bool ToDateMillis(bson::ValueView v, std::int64_t* out) {
  switch (v.type()) {
    case bson::Type::kDate:
      *out = v.Date();
      return true;
    case bson::Type::kTimestamp:
      *out = static_cast<std::int64_t>(v.Timestamp() >> 32) * 1000;
      return true;
    case bson::Type::kObjectId: {
      bson::ObjectId oid = v.Oid();
      std::int64_t seconds = (static_cast<std::int64_t>(oid.bytes[0]) << 24) |
                             (static_cast<std::int64_t>(oid.bytes[1]) << 16) |
                             (static_cast<std::int64_t>(oid.bytes[2]) << 8) | oid.bytes[3];
      *out = seconds * 1000;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace quarry::query::expr_internal
