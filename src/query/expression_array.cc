// Array expressions: $size $arrayElemAt $first $last $in $concatArrays $slice $filter $map
// $reduce $range $reverseArray $isArray $indexOfArray $allElementsTrue $anyElementTrue and the
// set operators ($setUnion $setIntersection $setDifference $setEquals $setIsSubset).
#include "bson/compare.h"
#include "query/expression_internal.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

std::string Str(std::string_view s) { return std::string(s); }

std::vector<Value> Elements(const Value& array) {
  std::vector<Value> out;
  for (const bson::Element& e : array.view().Document()) out.push_back(array.Child(e.value));
  return out;
}

StatusWith<Value> Size(std::string_view, std::vector<Value>& args) {
  if (!args[0].IsArray()) {
    return LocationError(17124, "The argument to $size must be an array. Type of argument: " +
                                    Str(TypeName(args[0])));
  }
  return Value::Int32(static_cast<std::int32_t>(args[0].view().Document().CountElements()));
}

// The element at `index` (negative counts from the end), or missing.
Value ElementAt(const Value& array, std::int64_t index) {
  std::vector<Value> elements = Elements(array);
  const auto n = static_cast<std::int64_t>(elements.size());
  if (index < 0) index += n;
  if (index < 0 || index >= n) return Value();
  return elements[static_cast<std::size_t>(index)];
}

StatusWith<Value> ArrayElemAt(std::string_view, std::vector<Value>& args) {
  const Value& array = args[0];
  const Value& index = args[1];
  if (array.nullish() || index.nullish()) return Value::Null();
  if (!array.IsArray()) {
    return LocationError(28689, "$arrayElemAt's first argument must be an array, but is " +
                                    Str(TypeName(array)));
  }
  if (!index.IsNumber()) {
    return LocationError(28690, "$arrayElemAt's second argument must be a numeric value, but is " +
                                    Str(TypeName(index)));
  }
  std::int64_t i = 0;
  if (!ToInt64Exact(index.view(), &i) || i < INT32_MIN || i > INT32_MAX) {
    return LocationError(28691,
                         "$arrayElemAt's second argument must be representable as a 32-bit "
                         "integer: " +
                             index.ToJson());
  }
  return ElementAt(array, i);
}

template <bool Last>
StatusWith<Value> FirstOrLast(std::string_view name, std::vector<Value>& args) {
  const Value& array = args[0];
  if (array.nullish()) return Value::Null();
  if (!array.IsArray()) {
    return LocationError(28689, Str(name) + "'s argument must be an array, but is " +
                                    Str(TypeName(array)));
  }
  return ElementAt(array, Last ? -1 : 0);
}

StatusWith<Value> In(std::string_view, std::vector<Value>& args) {
  if (!args[1].IsArray()) {
    return LocationError(40081, "$in requires an array as a second argument, found: " +
                                    Str(TypeName(args[1])));
  }
  for (const bson::Element& e : args[1].view().Document()) {
    if (bson::ValuesEqual(e.value, args[0].view())) return Value::Bool(true);
  }
  return Value::Bool(false);
}

StatusWith<Value> ConcatArrays(std::string_view, std::vector<Value>& args) {
  bson::ArrayBuilder out;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.IsArray()) {
      return LocationError(28664, "$concatArrays only supports arrays, not " + Str(TypeName(v)));
    }
    for (const bson::Element& e : v.view().Document()) out.Append(e.value);
  }
  return Value::FromArray(std::move(out).Finish());
}

StatusWith<Value> Slice(std::string_view, std::vector<Value>& args) {
  const Value& array = args[0];
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
  }
  if (!array.IsArray()) {
    return LocationError(28724, "First argument to $slice must be an array, but is of type: " +
                                    Str(TypeName(array)));
  }
  const Value& second = args[1];
  if (!second.IsNumber()) {
    return LocationError(28725, "Second argument to $slice must be a numeric value, but is of "
                                "type: " +
                                    Str(TypeName(second)));
  }
  std::int64_t first_arg = 0;
  if (!ToInt64Exact(second.view(), &first_arg) || first_arg < INT32_MIN || first_arg > INT32_MAX) {
    return LocationError(28726, "Second argument to $slice can't be represented as a 32-bit "
                                "integer: " +
                                    second.ToJson());
  }
  std::vector<Value> elements = Elements(array);
  const auto size = static_cast<std::int64_t>(elements.size());
  std::int64_t start = 0;
  std::int64_t count = 0;
  if (args.size() == 2) {
    if (first_arg >= 0) {
      count = first_arg;
    } else {
      start = std::max<std::int64_t>(0, size + first_arg);
      count = size;
    }
  } else {
    const Value& third = args[2];
    if (!third.IsNumber()) {
      return LocationError(28727, "Third argument to $slice must be numeric, but is of type: " +
                                      Str(TypeName(third)));
    }
    if (!ToInt64Exact(third.view(), &count) || count < INT32_MIN || count > INT32_MAX) {
      return LocationError(28728, "Third argument to $slice can't be represented as a 32-bit "
                                  "integer: " +
                                      third.ToJson());
    }
    if (count <= 0) {
      return LocationError(28729, "Third argument to $slice must be positive: " + third.ToJson());
    }
    start = first_arg >= 0 ? first_arg : std::max<std::int64_t>(0, size + first_arg);
  }
  bson::ArrayBuilder out;
  for (std::int64_t i = start; i < size && i - start < count; ++i) {
    out.Append(elements[static_cast<std::size_t>(i)].view());
  }
  return Value::FromArray(std::move(out).Finish());
}

StatusWith<Value> ReverseArray(std::string_view, std::vector<Value>& args) {
  const Value& array = args[0];
  if (array.nullish()) return Value::Null();
  if (!array.IsArray()) {
    return LocationError(34435, "The argument to $reverseArray must be an array, but was of "
                                "type: " +
                                    Str(TypeName(array)));
  }
  std::vector<Value> elements = Elements(array);
  bson::ArrayBuilder out;
  for (auto it = elements.rbegin(); it != elements.rend(); ++it) out.Append(it->view());
  return Value::FromArray(std::move(out).Finish());
}

StatusWith<Value> IsArray(std::string_view, std::vector<Value>& args) {
  return Value::Bool(args[0].IsArray());
}

StatusWith<Value> IndexOfArray(std::string_view, std::vector<Value>& args) {
  const Value& array = args[0];
  if (array.nullish()) return Value::Null();
  if (!array.IsArray()) {
    return LocationError(40090, "$indexOfArray requires an array as a first argument, found: " +
                                    Str(TypeName(array)));
  }
  std::int64_t bounds[2] = {0, -1};
  for (std::size_t arg_idx = 2; arg_idx < args.size(); ++arg_idx) {
    std::int64_t n = 0;
    if (!ToInt64Exact(args[arg_idx].view(), &n)) {
      return LocationError(40096, "$indexOfArray requires an integral " +
                                      Str(arg_idx == 2 ? "starting index" : "ending index") +
                                      ", found a value of type: " +
                                      Str(TypeName(args[arg_idx])) +
                                      ", with value: " + args[arg_idx].ToJson());
    }
    if (n < 0) {
      return LocationError(40097, "$indexOfArray requires a nonnegative " +
                                      Str(arg_idx == 2 ? "starting index" : "ending index") +
                                      ", found: " + std::to_string(n));
    }
    bounds[arg_idx - 2] = n;
  }
  std::vector<Value> elements = Elements(array);
  const auto size = static_cast<std::int64_t>(elements.size());
  const std::int64_t end = bounds[1] < 0 ? size : std::min(size, bounds[1]);
  for (std::int64_t i = bounds[0]; i < end; ++i) {
    if (bson::ValuesEqual(elements[static_cast<std::size_t>(i)].view(), args[1].view())) {
      return Value::Int32(static_cast<std::int32_t>(i));
    }
  }
  return Value::Int32(-1);
}

template <bool All>
StatusWith<Value> ElementsTrue(std::string_view name, std::vector<Value>& args) {
  const Value& array = args[0];
  if (!array.IsArray()) {
    return LocationError(All ? 17040 : 17041, Str(name) +
                                                  "'s argument must be an array, but is " +
                                                  Str(TypeName(array)));
  }
  for (const bson::Element& e : array.view().Document()) {
    bool truthy = e.value.Truthy();
    if (All && !truthy) return Value::Bool(false);
    if (!All && truthy) return Value::Bool(true);
  }
  return Value::Bool(All);
}

// ---- $range ----

StatusWith<Value> Range(std::string_view, std::vector<Value>& args) {
  static const char* kNames[] = {"starting value", "ending value", "step value"};
  static const int kTypeCodes[] = {34443, 34445, 34447};
  static const int kRangeCodes[] = {34444, 34446, 34448};
  std::int64_t numbers[3] = {0, 0, 1};
  for (std::size_t arg_idx = 0; arg_idx < args.size(); ++arg_idx) {
    const Value& v = args[arg_idx];
    if (!v.IsNumber()) {
      return LocationError(kTypeCodes[arg_idx], "$range requires a numeric " +
                                                    Str(kNames[arg_idx]) +
                                                    ", found value of type: " +
                                                    Str(TypeName(v)));
    }
    if (!ToInt64Exact(v.view(), &numbers[arg_idx]) || numbers[arg_idx] < INT32_MIN ||
        numbers[arg_idx] > INT32_MAX) {
      return LocationError(kRangeCodes[arg_idx],
                           "$range requires a " + Str(kNames[arg_idx]) +
                               " that can be represented as a 32-bit integer, found value: " +
                               v.ToJson());
    }
  }
  if (numbers[2] == 0) return LocationError(34449, "$range requires a non-zero step value");
  bson::ArrayBuilder out;
  constexpr std::size_t kMaxBytes = 64 * 1024 * 1024;
  for (std::int64_t i = numbers[0]; numbers[2] > 0 ? i < numbers[1] : i > numbers[1];
       i += numbers[2]) {
    out.AppendInt32(static_cast<std::int32_t>(i));
    if (out.size() > kMaxBytes) {
      return Status(ErrorCode::kExceededMemoryLimit,
                    "$range would use too much memory and cannot spill");
    }
  }
  return Value::FromArray(std::move(out).Finish());
}

// ---- set operators ----

void AddUnique(std::vector<Value>* set, const Value& v) {
  for (const Value& existing : *set) {
    if (bson::ValuesEqual(existing.view(), v.view())) return;
  }
  set->push_back(v);
}

bool Contains(const std::vector<Value>& set, const Value& v) {
  for (const Value& existing : set) {
    if (bson::ValuesEqual(existing.view(), v.view())) return true;
  }
  return false;
}

Status NotArray(std::string_view name, int code, const Value& v) {
  return LocationError(code, "All operands of " + Str(name) + " must be arrays. One argument is " +
                                 "of type: " + Str(TypeName(v)));
}

StatusWith<Value> SetUnion(std::string_view name, std::vector<Value>& args) {
  std::vector<Value> set;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.IsArray()) return NotArray(name, 17043, v);
    for (const Value& e : Elements(v)) AddUnique(&set, e);
  }
  return MakeArray(set);
}

StatusWith<Value> SetIntersection(std::string_view name, std::vector<Value>& args) {
  std::vector<Value> set;
  bool first = true;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.IsArray()) return NotArray(name, 17047, v);
    std::vector<Value> elements = Elements(v);
    if (first) {
      for (const Value& e : elements) AddUnique(&set, e);
      first = false;
      continue;
    }
    std::vector<Value> kept;
    for (const Value& e : set) {
      if (Contains(elements, e)) kept.push_back(e);
    }
    set = std::move(kept);
  }
  return MakeArray(set);
}

StatusWith<Value> SetDifference(std::string_view, std::vector<Value>& args) {
  if (args[0].nullish() || args[1].nullish()) return Value::Null();
  if (!args[0].IsArray() || !args[1].IsArray()) {
    const Value& bad = args[0].IsArray() ? args[1] : args[0];
    return LocationError(17048, "both operands of $setDifference must be arrays. " +
                                    Str(args[0].IsArray() ? "Second" : "First") +
                                    " argument is of type: " + Str(TypeName(bad)));
  }
  std::vector<Value> other = Elements(args[1]);
  std::vector<Value> set;
  for (const Value& e : Elements(args[0])) {
    if (!Contains(other, e)) AddUnique(&set, e);
  }
  return MakeArray(set);
}

StatusWith<Value> SetEquals(std::string_view name, std::vector<Value>& args) {
  std::vector<Value> reference;
  for (std::size_t arg_idx = 0; arg_idx < args.size(); ++arg_idx) {
    if (!args[arg_idx].IsArray()) {
      return LocationError(17044, "All operands of " + Str(name) +
                                      " must be arrays. One argument is of type: " +
                                      Str(TypeName(args[arg_idx])));
    }
    std::vector<Value> set;
    for (const Value& e : Elements(args[arg_idx])) AddUnique(&set, e);
    if (arg_idx == 0) {
      reference = std::move(set);
      continue;
    }
    if (set.size() != reference.size()) return Value::Bool(false);
    for (const Value& e : set) {
      if (!Contains(reference, e)) return Value::Bool(false);
    }
  }
  return Value::Bool(true);
}

StatusWith<Value> SetIsSubset(std::string_view, std::vector<Value>& args) {
  if (!args[0].IsArray()) {
    return LocationError(17046, "both operands of $setIsSubset must be arrays. First argument is "
                                "of type: " +
                                    Str(TypeName(args[0])));
  }
  if (!args[1].IsArray()) {
    return LocationError(17042, "both operands of $setIsSubset must be arrays. Second argument "
                                "is of type: " +
                                    Str(TypeName(args[1])));
  }
  std::vector<Value> superset = Elements(args[1]);
  for (const Value& e : Elements(args[0])) {
    if (!Contains(superset, e)) return Value::Bool(false);
  }
  return Value::Bool(true);
}

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
          return LocationError(327391, "$filter: limit must be represented as a 32-bit integral "
                                       "value: " +
                                           l.ToJson());
        }
        if (limit < 1) {
          return LocationError(327392, "$filter: limit must be greater than 0: " +
                                           std::to_string(limit));
        }
      }
    }
    if (input.nullish()) return Value::Null();
    if (!input.IsArray()) {
      return LocationError(28651, "input to $filter must be an array not " +
                                      Str(TypeName(input)));
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
                                                          std::move(parts.body),
                                                          std::move(limit)));
}

class MapExpression final : public Expression {
 public:
  MapExpression(ExpressionPtr input, VariableId var, ExpressionPtr in)
      : input_(std::move(input)), var_(var), in_(std::move(in)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    if (input.nullish()) return Value::Null();
    if (!input.IsArray()) {
      return LocationError(16883, "input to $map must be an array not " + Str(TypeName(input)));
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

StatusWith<ExpressionPtr> ParseMap(std::string_view name, bson::ValueView args,
                                   ParseContext& ctx) {
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
      : input_(std::move(input)), initial_(std::move(initial)), value_var_(value_var),
        this_var_(this_var), in_(std::move(in)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    if (input.nullish()) return Value::Null();
    if (!input.IsArray()) {
      return LocationError(40080, "$reduce requires that 'input' be an array, found: " +
                                      input.ToJson());
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
  QUARRY_ASSIGN_OR_RETURN(
      NamedArgs named, ParseNamedArgs(name, args, {"input", "initialValue", "in"},
                                      {"input", "initialValue", "in"}, 40075, 40076, 40077));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr input, Expression::Parse(named.Get("input"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr initial,
                          Expression::Parse(named.Get("initialValue"), ctx));
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

void AddArrayOperators(OperatorTable* table) {
  table->AddNary("$size", 1, 1, Size);
  table->AddNary("$arrayElemAt", 2, 2, ArrayElemAt);
  table->AddNary("$first", 1, 1, FirstOrLast<false>);
  table->AddNary("$last", 1, 1, FirstOrLast<true>);
  table->AddNary("$in", 2, 2, In);
  table->AddNary("$concatArrays", 0, -1, ConcatArrays);
  table->AddNary("$slice", 2, 3, Slice);
  table->AddNary("$reverseArray", 1, 1, ReverseArray);
  table->AddNary("$isArray", 1, 1, IsArray);
  table->AddNary("$indexOfArray", 2, 4, IndexOfArray);
  table->AddNary("$allElementsTrue", 1, 1, ElementsTrue<true>);
  table->AddNary("$anyElementTrue", 1, 1, ElementsTrue<false>);
  table->AddNary("$range", 2, 3, Range);
  table->AddNary("$setUnion", 0, -1, SetUnion);
  table->AddNary("$setIntersection", 0, -1, SetIntersection);
  table->AddNary("$setDifference", 2, 2, SetDifference);
  table->AddNary("$setEquals", 2, -1, SetEquals);
  table->AddNary("$setIsSubset", 2, 2, SetIsSubset);
  table->Add("$filter", ParseFilter);
  table->Add("$map", ParseMap);
  table->Add("$reduce", ParseReduce);
}

}  // namespace quarry::query::expr_internal
