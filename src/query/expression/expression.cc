// Expression parsing, the operator table, and the core expressions: constants, field paths,
// variables, object and array literals.
#include "query/expression/expression.h"

#include "bson/path.h"
#include "query/expression/expression_internal.h"

namespace quarry::query {

using expr_internal::OperatorEntry;
using expr_internal::OperatorTable;
using expr_internal::ValidateVariableNameForWrite;

namespace {

const OperatorTable& Operators();

bool IsAsciiLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsAsciiAlpha(char c) { return IsAsciiLower(c) || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHighBit(char c) { return (static_cast<unsigned char>(c) & 0x80) != 0; }

Status ValidateVariableNameForRead(std::string_view name) {
  if (name.empty()) return LocationError(16869, "empty variable names are not allowed");
  if (!IsAsciiAlpha(name[0]) && !IsHighBit(name[0])) {
    return LocationError(16870, "'" + std::string(name) +
                                    "' starts with an invalid character for a user variable name");
  }
  for (char c : name.substr(1)) {
    if (!IsAsciiAlpha(c) && !IsAsciiDigit(c) && c != '_' && !IsHighBit(c)) {
      return LocationError(16871, "'" + std::string(name) +
                                      "' contains an invalid character for a variable name: '" +
                                      std::string(1, c) + "'");
    }
  }
  return Status::OK();
}

Status ValidateFieldName(std::string_view name) {
  if (name.empty()) return LocationError(15998, "FieldPath field names may not be empty strings.");
  if (name[0] == '$') {
    return LocationError(16410,
                         "FieldPath field names may not start with '$'. Consider using $getField "
                         "or $setField.");
  }
  if (name.find('\0') != std::string_view::npos) {
    return LocationError(16411, "FieldPath field names may not contain '\\0'.");
  }
  return Status::OK();
}

// ---- constants ----

class ConstantExpression final : public Expression {
 public:
  explicit ConstantExpression(Value value) : value_(std::move(value)) {}
  StatusWith<Value> Evaluate(EvalContext&) const override { return value_; }
  bool IsConstant() const override { return true; }

 private:
  Value value_;
};

// ---- field paths and variables ----

// Aggregation's path semantics: a field of a document; over an array, the path continues in
// each document element and the results form an array (other elements are skipped).
Value WalkPath(const Value& base, const std::vector<std::string>& path, std::size_t index) {
  Value current = base;
  while (index < path.size()) {
    if (current.IsDocument()) {
      bson::ValueView next = current.view().Document().Get(path[index]);
      if (!next.exists()) return Value();
      current = current.Child(next);
      ++index;
      continue;
    }
    if (current.IsArray()) {
      bson::ArrayBuilder out;
      for (const bson::Element& e : current.view().Document()) {
        if (e.value.type() != bson::Type::kDocument) continue;
        Value nested = WalkPath(current.Child(e.value), path, index);
        if (!nested.missing()) out.Append(nested.view());
      }
      return Value::FromArray(std::move(out).Finish());
    }
    return Value();
  }
  return current;
}

class FieldPathExpression final : public Expression {
 public:
  enum class Base { kCurrent, kRoot, kNow, kRemove, kSlot, kConstant };

  FieldPathExpression(Base base, VariableId slot, Value constant, std::vector<std::string> path)
      : base_(base), slot_(slot), constant_(std::move(constant)), path_(std::move(path)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    Value start;
    switch (base_) {
      case Base::kCurrent:
        start = ctx.current();
        break;
      case Base::kRoot:
        start = ctx.root();
        break;
      case Base::kNow:
        start = Value::Date(ctx.now_millis());
        break;
      case Base::kRemove:
        return Value();
      case Base::kSlot:
        start = ctx.GetVariable(slot_);
        break;
      case Base::kConstant:
        start = constant_;
        break;
    }
    return WalkPath(start, path_, 0);
  }
  bool IsConstant() const override { return base_ == Base::kConstant || base_ == Base::kRemove; }

 private:
  Base base_;
  VariableId slot_;
  Value constant_;
  std::vector<std::string> path_;
};

StatusWith<ExpressionPtr> ParseFieldPath(std::string_view text, ParseContext& ctx) {
  // text starts with '$'.
  if (text.size() == 1) return LocationError(16872, "'$' by itself is not a valid FieldPath");
  using Base = FieldPathExpression::Base;
  Base base = Base::kCurrent;
  VariableId slot = -1;
  Value constant;
  std::string_view rest;
  if (text[1] == '$') {
    std::string_view body = text.substr(2);
    std::size_t dot = body.find('.');
    std::string_view name = body.substr(0, dot);
    rest = dot == std::string_view::npos ? std::string_view() : body.substr(dot + 1);
    if (dot != std::string_view::npos && rest.empty()) {
      return LocationError(15998, "FieldPath field names may not be empty strings.");
    }
    QUARRY_RETURN_IF_ERROR(ValidateVariableNameForRead(name));
    ParseContext::Binding binding = ctx.Lookup(name);
    if (binding.found) {
      if (binding.is_constant) {
        base = Base::kConstant;
        constant = binding.constant;
      } else {
        base = Base::kSlot;
        slot = binding.slot;
      }
    } else if (name == "CURRENT") {
      base = Base::kCurrent;
    } else if (name == "ROOT") {
      base = Base::kRoot;
    } else if (name == "NOW") {
      base = Base::kNow;
    } else if (name == "REMOVE" || name == "SEARCH_META") {
      // $$SEARCH_META is missing where no $search has set it, as in mongod.
      base = Base::kRemove;
    } else {
      return LocationError(17276, "Use of undefined variable: " + std::string(name));
    }
  } else {
    rest = text.substr(1);
  }
  std::vector<std::string> path;
  if (!rest.empty() || text[1] != '$') {
    for (const bson::PathComponent& part : bson::PathComponents(rest)) {
      QUARRY_RETURN_IF_ERROR(ValidateFieldName(part.name));
      path.emplace_back(part.name);
    }
  }
  return ExpressionPtr(
      std::make_shared<FieldPathExpression>(base, slot, std::move(constant), std::move(path)));
}

// ---- object and array literals ----

class ObjectExpression final : public Expression {
 public:
  explicit ObjectExpression(std::vector<std::pair<std::string, ExpressionPtr>> fields)
      : fields_(std::move(fields)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    bson::DocumentBuilder out;
    for (const auto& [name, expr] : fields_) {
      QUARRY_ASSIGN_OR_RETURN(Value v, expr->Evaluate(ctx));
      v.AppendTo(name, &out);
    }
    return Value::FromDocument(std::move(out).Finish());
  }
  bool IsConstant() const override {
    for (const auto& field : fields_) {
      if (!field.second->IsConstant()) return false;
    }
    return true;
  }

 private:
  std::vector<std::pair<std::string, ExpressionPtr>> fields_;
};

class ArrayExpression final : public Expression {
 public:
  explicit ArrayExpression(std::vector<ExpressionPtr> elements) : elements_(std::move(elements)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    bson::ArrayBuilder out;
    for (const ExpressionPtr& element : elements_) {
      QUARRY_ASSIGN_OR_RETURN(Value v, element->Evaluate(ctx));
      if (v.missing()) {
        out.AppendNull();  // missing elements become null, as in mongod
      } else {
        out.Append(v.view());
      }
    }
    return Value::FromArray(std::move(out).Finish());
  }
  bool IsConstant() const override {
    for (const ExpressionPtr& element : elements_) {
      if (!element->IsConstant()) return false;
    }
    return true;
  }

 private:
  std::vector<ExpressionPtr> elements_;
};

const OperatorTable& Operators() {
  static const OperatorTable* table = [] {
    auto* t = new OperatorTable();
    expr_internal::AddCoreOperators(t);
    expr_internal::AddArithmeticOperators(t);
    expr_internal::AddComparisonOperators(t);
    expr_internal::AddStringOperators(t);
    expr_internal::AddArrayOperators(t);
    expr_internal::AddTypeOperators(t);
    expr_internal::AddDateOperators(t);
    expr_internal::AddObjectOperators(t);
    expr_internal::AddAccumulatorOperators(t);
    expr_internal::AddSetOperators(t);
    expr_internal::AddLoopOperators(t);
    expr_internal::AddRegexOperators(t);
    expr_internal::AddConvertOperators(t);
    return t;
  }();
  return *table;
}

StatusWith<ExpressionPtr> ParseOperator(bson::DocumentView spec, ParseContext& ctx) {
  std::size_t count = spec.CountElements();
  const bson::Element first = *spec.begin();
  if (count != 1) {
    return LocationError(15983,
                         "an expression specification must contain exactly one field, the name "
                         "of the expression. Found " +
                             std::to_string(count) + " fields in " + spec.ToJson());
  }
  const OperatorEntry* entry = Operators().Find(first.key);
  if (entry == nullptr) {
    return Status(ErrorCode::kInvalidPipelineOperator,
                  "Unrecognized expression '" + std::string(first.key) + "'");
  }
  if (entry->parser != nullptr) return entry->parser(first.key, first.value, ctx);
  QUARRY_ASSIGN_OR_RETURN(std::vector<ExpressionPtr> operands,
                          expr_internal::ParseOperands(first.value, ctx));
  QUARRY_RETURN_IF_ERROR(
      expr_internal::CheckArity(first.key, operands.size(), entry->min_args, entry->max_args));
  if (entry->collated_fn != nullptr) {
    return ExpressionPtr(std::make_shared<expr_internal::NaryExpression>(
        std::string(first.key), std::move(operands), entry->collated_fn, ctx.shared_collator()));
  }
  return ExpressionPtr(std::make_shared<expr_internal::NaryExpression>(
      std::string(first.key), std::move(operands), entry->fn));
}

}  // namespace

// ---- Expression ----

StatusWith<ExpressionPtr> Expression::Parse(bson::ValueView spec, ParseContext& ctx) {
  switch (spec.type()) {
    case bson::Type::kString: {
      std::string_view text = spec.String();
      if (!text.empty() && text[0] == '$') return ParseFieldPath(text, ctx);
      return Constant(Value::Copy(spec));
    }
    case bson::Type::kDocument: {
      bson::DocumentView doc = spec.Document();
      if (!doc.empty() && !doc.FirstKey().empty() && doc.FirstKey()[0] == '$') {
        return ParseOperator(doc, ctx);
      }
      return ParseObject(doc, ctx);
    }
    case bson::Type::kArray: {
      std::vector<ExpressionPtr> elements;
      for (const bson::Element& e : spec.Document()) {
        QUARRY_ASSIGN_OR_RETURN(ExpressionPtr element, Parse(e.value, ctx));
        elements.push_back(std::move(element));
      }
      return ExpressionPtr(std::make_shared<ArrayExpression>(std::move(elements)));
    }
    default:
      return Constant(Value::Copy(spec));
  }
}

StatusWith<ExpressionPtr> Expression::ParseObject(bson::DocumentView spec, ParseContext& ctx) {
  std::vector<std::pair<std::string, ExpressionPtr>> fields;
  for (const bson::Element& e : spec) {
    QUARRY_RETURN_IF_ERROR(ValidateFieldName(e.key));
    if (e.key.find('.') != std::string_view::npos) {
      return LocationError(16412, "FieldPath field names may not contain '.'.");
    }
    for (const auto& field : fields) {
      if (field.first == e.key) {
        return LocationError(16406,
                             "duplicate field name specified in object literal: " + spec.ToJson());
      }
    }
    QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Parse(e.value, ctx));
    fields.emplace_back(std::string(e.key), std::move(expr));
  }
  return ExpressionPtr(std::make_shared<ObjectExpression>(std::move(fields)));
}

ExpressionPtr Expression::Constant(Value value) {
  return std::make_shared<ConstantExpression>(value.Owned());
}

StatusWith<Value> EvaluateOn(const Expression& expr, bson::DocumentView doc, EvalContext& ctx) {
  ctx.SetRoot(doc);
  QUARRY_ASSIGN_OR_RETURN(Value v, expr.Evaluate(ctx));
  return v.Owned();
}

Status DefineLetConstants(bson::DocumentView let, ParseContext* ctx) {
  EvalContext eval;
  eval.SetRoot(Value::FromDocument(bson::Document()));
  for (const bson::Element& e : let) {
    QUARRY_RETURN_IF_ERROR(ValidateVariableNameForWrite(e.key));
    QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(e.value, *ctx));
    QUARRY_ASSIGN_OR_RETURN(Value value, expr->Evaluate(eval));
    QUARRY_RETURN_IF_ERROR(ctx->DefineConstant(e.key, std::move(value)));
  }
  return Status::OK();
}

}  // namespace quarry::query
