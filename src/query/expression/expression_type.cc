// Type expressions ($type, $isNumber) and the number and string formatting other operators share.
#include <charconv>
#include <cmath>

#include "bson/types.h"
#include "query/expression/expression_internal.h"
#include "query/value/value_decimal.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

StatusWith<Value> TypeOf(std::string_view, std::vector<Value>& args) {
  return Value::String(TypeName(args[0]));
}

StatusWith<Value> IsNumberFn(std::string_view, std::vector<Value>& args) {
  return Value::Bool(args[0].IsNumber());
}

}  // namespace

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  if (ec != std::errc()) return "0";
  return std::string(buf, ptr);
}

StatusWith<std::string> CoerceToString(bson::ValueView v) {
  switch (v.type()) {
    case Type::kEod:
    case Type::kNull:
    case Type::kUndefined:
      return std::string();
    case Type::kString:
    case Type::kSymbol:
    case Type::kCode:
      return std::string(v.String());
    case Type::kInt32:
      return std::to_string(v.Int32());
    case Type::kInt64:
      return std::to_string(v.Int64());
    case Type::kDouble:
      return FormatDouble(v.Double());
    case Type::kDecimal128:
      return DecimalToString(v.Dec128());
    case Type::kDate:
      return FormatIsoDate(v.Date());
    case Type::kTimestamp: {
      std::uint64_t ts = v.Timestamp();
      return "Timestamp(" + std::to_string(ts >> 32) + ", " + std::to_string(ts & 0xFFFFFFFF) + ")";
    }
    default:
      return LocationError(
          16007, "can't convert from BSON type " + std::string(TypeName(v)) + " to String");
  }
}

void AddTypeOperators(OperatorTable* table) {
  table->AddNary("$type", 1, 1, TypeOf);
  table->AddNary("$isNumber", 1, 1, IsNumberFn);
}

}  // namespace quarry::query::expr_internal
