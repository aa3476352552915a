// Object expressions: $mergeObjects $objectToArray $arrayToObject $getField $setField
// $unsetField.
#include "query/expression/expression_internal.h"
#include "query/value/field_list.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

StatusWith<Value> MergeObjects(std::string_view, std::vector<Value>& args) {
  FieldList fields;
  for (std::size_t arg_idx = 0; arg_idx < args.size(); ++arg_idx) {
    const Value& v = args[arg_idx];
    if (v.nullish()) continue;
    if (!v.IsDocument()) {
      return LocationError(40400, "$mergeObjects requires object inputs, but input " + v.ToJson() +
                                      " is of type " + std::string(TypeName(v)));
    }
    fields.Merge(v.view().Document(), v);
  }
  return fields.ToDocument();
}

StatusWith<Value> ObjectToArray(std::string_view, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsDocument()) {
    return LocationError(
        40390, "$objectToArray requires a document input, found: " + std::string(TypeName(v)));
  }
  bson::DocumentBuilder out;
  int index = 0;
  for (const bson::Element& e : v.view().Document()) {
    out.OpenDocument(std::to_string(index++));
    out.AppendString("k", e.key);
    out.Append("v", e.value);
    out.Close();
  }
  return Value::FromArray(std::move(out).Finish());
}

StatusWith<Value> ArrayToObject(std::string_view, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsArray()) {
    return LocationError(
        40386, "$arrayToObject requires an array input, found: " + std::string(TypeName(v)));
  }
  FieldList fields;
  int format = 0;  // 1: [k, v] pairs, 2: {k, v} documents
  for (const bson::Element& e : v.view().Document()) {
    bson::ValueView key;
    bson::ValueView value;
    if (e.value.type() == Type::kArray) {
      if (format == 2) {
        return LocationError(40391,
                             "$arrayToObject requires a consistent input format. Expected a "
                             "document but found an array");
      }
      format = 1;
      std::size_t count = e.value.Document().CountElements();
      if (count != 2) {
        return LocationError(40397,
                             "$arrayToObject requires an array of size 2 arrays,found "
                             "array of size: " +
                                 std::to_string(count));
      }
      auto it = e.value.Document().begin();
      key = it->value;
      ++it;
      value = it->value;
    } else if (e.value.type() == Type::kDocument) {
      if (format == 1) {
        return LocationError(40391,
                             "$arrayToObject requires a consistent input format. Expected an "
                             "array but found a document");
      }
      format = 2;
      bson::DocumentView pair = e.value.Document();
      std::size_t count = pair.CountElements();
      key = pair.Get("k");
      value = pair.Get("v");
      if (count != 2 || !key.exists() || !value.exists()) {
        return LocationError(40392,
                             "$arrayToObject requires an object keys of 'k' and 'v'. Found "
                             "incorrect number of keys:" +
                                 std::to_string(count));
      }
    } else {
      return LocationError(40398, "Unrecognised input type format for $arrayToObject: " +
                                      std::string(TypeName(e.value)));
    }
    if (key.type() != Type::kString) {
      return LocationError(40395,
                           "$arrayToObject requires an array of key-value pairs, where the key "
                           "must be of type string. Found key type: " +
                               std::string(TypeName(key)));
    }
    if (key.String().find('\0') != std::string_view::npos) {
      return LocationError(4940400, "Key field cannot contain an embedded null byte");
    }
    fields.Set(key.String(), v.Child(value));
  }
  return fields.ToDocument();
}

// ---- $getField / $setField / $unsetField ----

class GetFieldExpression final : public Expression {
 public:
  GetFieldExpression(std::string field, ExpressionPtr input)
      : field_(std::move(field)), input_(std::move(input)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    Value input;
    if (input_ == nullptr) {
      input = ctx.current();
    } else {
      QUARRY_ASSIGN_OR_RETURN(input, input_->Evaluate(ctx));
    }
    if (input.nullish()) return Value::Null();
    if (!input.IsDocument()) {
      return LocationError(3041705,
                           "$getField requires 'input' to evaluate to type Object, "
                           "but got " +
                               std::string(TypeName(input)));
    }
    bson::ValueView v = input.view().Document().Get(field_);
    if (!v.exists()) return Value();
    return input.Child(v);
  }

 private:
  std::string field_;
  ExpressionPtr input_;
};

// The constant field name of $getField/$setField: a string, or an expression that is constant
// and evaluates to one ($literal).
StatusWith<std::string> ConstantFieldName(std::string_view op, bson::ValueView spec,
                                          ParseContext& ctx) {
  if (spec.type() == Type::kString) {
    if (!spec.String().empty() && spec.String()[0] == '$') {
      return LocationError(5654602,
                           "A string that starts with '$' is not allowed as 'field' "
                           "argument to " +
                               std::string(op) + ". Use $literal.");
    }
    return std::string(spec.String());
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(spec, ctx));
  if (!expr->IsConstant()) {
    return LocationError(5654601, std::string(op) +
                                      " requires 'field' to evaluate to a constant, but "
                                      "got a non-constant argument");
  }
  EvalContext eval;
  QUARRY_ASSIGN_OR_RETURN(Value v, expr->Evaluate(eval));
  if (v.type() != Type::kString) {
    return LocationError(5654602, std::string(op) +
                                      " requires 'field' to evaluate to type String, but "
                                      "got " +
                                      std::string(TypeName(v)));
  }
  return std::string(v.view().String());
}

StatusWith<ExpressionPtr> ParseGetField(std::string_view name, bson::ValueView args,
                                        ParseContext& ctx) {
  if (args.type() != Type::kDocument || args.Document().empty() ||
      args.Document().FirstKey()[0] == '$') {
    // Shorthand: {$getField: "name"} reads the field of $$CURRENT.
    QUARRY_ASSIGN_OR_RETURN(std::string field, ConstantFieldName(name, args, ctx));
    return ExpressionPtr(std::make_shared<GetFieldExpression>(std::move(field), nullptr));
  }
  QUARRY_ASSIGN_OR_RETURN(NamedArgs named, ParseNamedArgs(name, args, {"field", "input"}, {"field"},
                                                          3041702, 3041701, 3041702));
  QUARRY_ASSIGN_OR_RETURN(std::string field, ConstantFieldName(name, named.Get("field"), ctx));
  ExpressionPtr input;
  if (named.Has("input")) {
    QUARRY_ASSIGN_OR_RETURN(input, Expression::Parse(named.Get("input"), ctx));
  }
  return ExpressionPtr(std::make_shared<GetFieldExpression>(std::move(field), std::move(input)));
}

class SetFieldExpression final : public Expression {
 public:
  SetFieldExpression(std::string field, ExpressionPtr input, ExpressionPtr value)
      : field_(std::move(field)), input_(std::move(input)), value_(std::move(value)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    if (input.nullish()) return Value::Null();
    if (!input.IsDocument()) {
      return LocationError(4161105, "$setField requires 'input' to evaluate to type Object");
    }
    Value value;
    if (value_ != nullptr) {
      QUARRY_ASSIGN_OR_RETURN(value, value_->Evaluate(ctx));
    }
    FieldList fields;
    fields.Merge(input.view().Document(), input);
    if (value.missing()) {
      fields.Remove(field_);
    } else {
      fields.Set(field_, value);
    }
    return fields.ToDocument();
  }

 private:
  std::string field_;
  ExpressionPtr input_;
  ExpressionPtr value_;  // null for $unsetField
};

StatusWith<ExpressionPtr> ParseSetField(std::string_view name, bson::ValueView args,
                                        ParseContext& ctx) {
  const bool unset = name == "$unsetField";
  std::vector<std::string_view> allowed = {"field", "input"};
  if (!unset) allowed.push_back("value");
  std::vector<std::string_view> required = allowed;
  QUARRY_ASSIGN_OR_RETURN(NamedArgs named,
                          ParseNamedArgs(name, args, allowed, required, 4161100, 4161101, 4161102));
  QUARRY_ASSIGN_OR_RETURN(std::string field, ConstantFieldName(name, named.Get("field"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr input, Expression::Parse(named.Get("input"), ctx));
  ExpressionPtr value;
  if (!unset) {
    QUARRY_ASSIGN_OR_RETURN(value, Expression::Parse(named.Get("value"), ctx));
  }
  return ExpressionPtr(
      std::make_shared<SetFieldExpression>(std::move(field), std::move(input), std::move(value)));
}

}  // namespace

void AddObjectOperators(OperatorTable* table) {
  table->AddNary("$mergeObjects", 0, -1, MergeObjects);
  table->AddNary("$objectToArray", 1, 1, ObjectToArray);
  table->AddNary("$arrayToObject", 1, 1, ArrayToObject);
  table->Add("$getField", ParseGetField);
  table->Add("$setField", ParseSetField);
  table->Add("$unsetField", ParseSetField);
}

}  // namespace quarry::query::expr_internal
