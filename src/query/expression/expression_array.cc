// Array expressions: $size $arrayElemAt $first $last $in $concatArrays $slice
// $range $reverseArray $isArray $indexOfArray $allElementsTrue $anyElementTrue.
#include "bson/compare.h"
#include "query/expression/expression_internal.h"
#include "query/value/value_arithmetic.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

std::vector<Value> Elements(const Value& array) {
  std::vector<Value> out;
  for (const bson::Element& e : array.view().Document()) out.push_back(array.Child(e.value));
  return out;
}

StatusWith<Value> Size(std::string_view, std::vector<Value>& args) {
  if (!args[0].IsArray()) {
    return LocationError(17124, "The argument to $size must be an array. Type of argument: " +
                                    std::string(TypeName(args[0])));
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
                                    std::string(TypeName(array)));
  }
  if (!index.IsNumber()) {
    return LocationError(28690, "$arrayElemAt's second argument must be a numeric value, but is " +
                                    std::string(TypeName(index)));
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
    return LocationError(28689, std::string(name) + "'s argument must be an array, but is " +
                                    std::string(TypeName(array)));
  }
  return ElementAt(array, Last ? -1 : 0);
}

StatusWith<Value> In(std::string_view, std::vector<Value>& args,
                     const bson::StringComparator* collator) {
  if (!args[1].IsArray()) {
    return LocationError(40081, "$in requires an array as a second argument, found: " +
                                    std::string(TypeName(args[1])));
  }
  for (const bson::Element& e : args[1].view().Document()) {
    if (bson::ValuesEqual(e.value, args[0].view(), collator)) return Value::Bool(true);
  }
  return Value::Bool(false);
}

StatusWith<Value> ConcatArrays(std::string_view, std::vector<Value>& args) {
  bson::ArrayBuilder out;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.IsArray()) {
      return LocationError(28664,
                           "$concatArrays only supports arrays, not " + std::string(TypeName(v)));
    }
    for (const bson::Element& e : v.view().Document()) out.Append(e.value);
    if (out.size() > 16 * 1024 * 1024) {
      return Status(ErrorCode::kBSONObjectTooLarge,
                    "$concatArrays would create an array larger than the maximum BSON size");
    }
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
                                    std::string(TypeName(array)));
  }
  const Value& second = args[1];
  if (!second.IsNumber()) {
    return LocationError(28725,
                         "Second argument to $slice must be a numeric value, but is of "
                         "type: " +
                             std::string(TypeName(second)));
  }
  std::int64_t first_arg = 0;
  if (!ToInt64Exact(second.view(), &first_arg) || first_arg < INT32_MIN || first_arg > INT32_MAX) {
    return LocationError(28726,
                         "Second argument to $slice can't be represented as a 32-bit "
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
                                      std::string(TypeName(third)));
    }
    if (!ToInt64Exact(third.view(), &count) || count < INT32_MIN || count > INT32_MAX) {
      return LocationError(28728,
                           "Third argument to $slice can't be represented as a 32-bit "
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
    return LocationError(34435,
                         "The argument to $reverseArray must be an array, but was of "
                         "type: " +
                             std::string(TypeName(array)));
  }
  std::vector<Value> elements = Elements(array);
  bson::ArrayBuilder out;
  for (auto it = elements.rbegin(); it != elements.rend(); ++it) out.Append(it->view());
  return Value::FromArray(std::move(out).Finish());
}

StatusWith<Value> IsArray(std::string_view, std::vector<Value>& args) {
  return Value::Bool(args[0].IsArray());
}

StatusWith<Value> IndexOfArray(std::string_view, std::vector<Value>& args,
                               const bson::StringComparator* collator) {
  const Value& array = args[0];
  if (array.nullish()) return Value::Null();
  if (!array.IsArray()) {
    return LocationError(40090, "$indexOfArray requires an array as a first argument, found: " +
                                    std::string(TypeName(array)));
  }
  std::int64_t bounds[2] = {0, -1};
  for (std::size_t arg_idx = 2; arg_idx < args.size(); ++arg_idx) {
    std::int64_t n = 0;
    if (!ToInt64Exact(args[arg_idx].view(), &n)) {
      return LocationError(40096,
                           "$indexOfArray requires an integral " +
                               std::string(arg_idx == 2 ? "starting index" : "ending index") +
                               ", found a value of type: " + std::string(TypeName(args[arg_idx])) +
                               ", with value: " + args[arg_idx].ToJson());
    }
    if (n < 0) {
      return LocationError(40097,
                           "$indexOfArray requires a nonnegative " +
                               std::string(arg_idx == 2 ? "starting index" : "ending index") +
                               ", found: " + std::to_string(n));
    }
    bounds[arg_idx - 2] = n;
  }
  std::vector<Value> elements = Elements(array);
  const auto size = static_cast<std::int64_t>(elements.size());
  const std::int64_t end = bounds[1] < 0 ? size : std::min(size, bounds[1]);
  for (std::int64_t i = bounds[0]; i < end; ++i) {
    if (bson::ValuesEqual(elements[static_cast<std::size_t>(i)].view(), args[1].view(), collator)) {
      return Value::Int32(static_cast<std::int32_t>(i));
    }
  }
  return Value::Int32(-1);
}

template <bool All>
StatusWith<Value> ElementsTrue(std::string_view name, std::vector<Value>& args) {
  const Value& array = args[0];
  if (!array.IsArray()) {
    return LocationError(
        All ? 17040 : 17041,
        std::string(name) + "'s argument must be an array, but is " + std::string(TypeName(array)));
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
  static constexpr const char* kNames[] = {"starting value", "ending value", "step value"};
  static const int kTypeCodes[] = {34443, 34445, 34447};
  static const int kRangeCodes[] = {34444, 34446, 34448};
  std::int64_t numbers[3] = {0, 0, 1};
  for (std::size_t arg_idx = 0; arg_idx < args.size(); ++arg_idx) {
    const Value& v = args[arg_idx];
    if (!v.IsNumber()) {
      return LocationError(kTypeCodes[arg_idx],
                           "$range requires a numeric " + std::string(kNames[arg_idx]) +
                               ", found value of type: " + std::string(TypeName(v)));
    }
    if (!ToInt64Exact(v.view(), &numbers[arg_idx]) || numbers[arg_idx] < INT32_MIN ||
        numbers[arg_idx] > INT32_MAX) {
      return LocationError(
          kRangeCodes[arg_idx],
          "$range requires a " + std::string(kNames[arg_idx]) +
              " that can be represented as a 32-bit integer, found value: " + v.ToJson());
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

}  // namespace

void AddArrayOperators(OperatorTable* table) {
  table->AddNary("$size", 1, 1, Size);
  table->AddNary("$arrayElemAt", 2, 2, ArrayElemAt);
  table->AddNary("$first", 1, 1, FirstOrLast<false>);
  table->AddNary("$last", 1, 1, FirstOrLast<true>);
  table->AddCollatedNary("$in", 2, 2, In);
  table->AddNary("$concatArrays", 0, -1, ConcatArrays);
  table->AddNary("$slice", 2, 3, Slice);
  table->AddNary("$reverseArray", 1, 1, ReverseArray);
  table->AddNary("$isArray", 1, 1, IsArray);
  table->AddCollatedNary("$indexOfArray", 2, 4, IndexOfArray);
  table->AddNary("$allElementsTrue", 1, 1, ElementsTrue<true>);
  table->AddNary("$anyElementTrue", 1, 1, ElementsTrue<false>);
  table->AddNary("$range", 2, 3, Range);
}

}  // namespace quarry::query::expr_internal
