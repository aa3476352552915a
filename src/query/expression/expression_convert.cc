// Conversions: $convert and its shorthands $toString $toInt $toLong $toDouble $toDecimal $toBool
// $toObjectId $toDate.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <variant>

#include "bson/types.h"
#include "query/expression/expression_internal.h"
#include "query/value/value_arithmetic.h"
#include "query/value/value_decimal.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

// A conversion failure: the caller turns it into onError's value or into ConversionFailure.
struct ConvertError {
  std::string message;
};
using Converted = std::variant<Value, ConvertError>;

ConvertError Unsupported(const Value& input, std::string_view target) {
  return {"Unsupported conversion from " + std::string(TypeName(input)) + " to " +
          std::string(target) + " in $convert with no onError value"};
}

ConvertError ParseFailure(std::string_view text, std::string_view reason) {
  return {"Failed to parse number '" + std::string(text) +
          "' in $convert with no onError value: " + std::string(reason)};
}

bool ParseStrictDouble(std::string_view text, double* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  std::string s(text);
  if (s == "Infinity" || s == "inf" || s == "+Infinity") {
    *out = HUGE_VAL;
    return true;
  }
  if (s == "-Infinity" || s == "-inf") {
    *out = -HUGE_VAL;
    return true;
  }
  if (s == "NaN" || s == "nan") {
    *out = std::nan("");
    return true;
  }
  for (char c : s) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
          c == '+' || c == '-')) {
      return false;
    }
  }
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

Converted ParseInteger(std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t n = 0;
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec == std::errc::invalid_argument) {
    return ParseFailure(text, "Did not consume any digits");
  }
  if (ec == std::errc::result_out_of_range || n < min || n > max) {
    return ParseFailure(text, "Out of range");
  }
  if (ptr != digits.data() + digits.size()) {
    return ParseFailure(text, "Did not consume whole string.");
  }
  return Value::Integer(n);
}

// Integral value of a double/decimal for $toInt/$toLong, checking NaN and range.
Converted FloatToInteger(const Value& input, double d, std::int64_t min, std::int64_t max,
                         bool want_long) {
  if (std::isnan(d)) {
    return ConvertError{
        "Attempt to convert NaN value to integer type in $convert with no "
        "onError value"};
  }
  if (std::isinf(d)) {
    return ConvertError{
        "Attempt to convert infinity value to integer type in $convert with no "
        "onError value"};
  }
  double t = std::trunc(d);
  if (t < static_cast<double>(min) || t >= static_cast<double>(max) + 1.0) {
    return ConvertError{
        "Conversion would overflow target type in $convert with no onError "
        "value: " +
        input.ToJson()};
  }
  auto n = static_cast<std::int64_t>(t);
  return want_long ? Value::Int64(n) : Value::Int32(static_cast<std::int32_t>(n));
}

Converted ToInt(const Value& v, bool want_long) {
  const std::int64_t min = want_long ? INT64_MIN : INT32_MIN;
  const std::int64_t max = want_long ? INT64_MAX : INT32_MAX;
  const char* target = want_long ? "long" : "int";
  switch (v.type()) {
    case Type::kInt32:
      return want_long ? Value::Int64(v.view().Int32()) : v;
    case Type::kInt64: {
      std::int64_t n = v.view().Int64();
      if (!want_long && (n < min || n > max)) {
        return ConvertError{
            "Conversion would overflow target type in $convert with no onError "
            "value: " +
            v.ToJson()};
      }
      return want_long ? v : Value::Int32(static_cast<std::int32_t>(n));
    }
    case Type::kDouble:
      return FloatToInteger(v, v.view().Double(), min, max, want_long);
    case Type::kDecimal128:
      return FloatToInteger(v, DecimalToDouble(v.view().Dec128()), min, max, want_long);
    case Type::kBool:
      return want_long ? Value::Int64(v.view().Bool() ? 1 : 0)
                       : Value::Int32(v.view().Bool() ? 1 : 0);
    case Type::kString: {
      Converted c = ParseInteger(v.view().String(), min, max);
      if (std::holds_alternative<Value>(c) && want_long) {
        return Value::Int64(std::get<Value>(c).view().AsInt64());
      }
      if (std::holds_alternative<Value>(c)) {
        return Value::Int32(static_cast<std::int32_t>(std::get<Value>(c).view().AsInt64()));
      }
      return c;
    }
    case Type::kDate:
      if (want_long) return Value::Int64(v.view().Date());
      return Unsupported(v, target);
    default:
      return Unsupported(v, target);
  }
}

Converted ToDouble(const Value& v) {
  switch (v.type()) {
    case Type::kDouble:
      return v;
    case Type::kInt32:
    case Type::kInt64:
      return Value::Double(static_cast<double>(v.view().AsInt64()));
    case Type::kDecimal128: {
      double d = DecimalToDouble(v.view().Dec128());
      if (std::isinf(d) && !std::isinf(DecimalToDouble(v.view().Dec128()))) {
        return ConvertError{
            "Conversion would overflow target type in $convert with no onError "
            "value: " +
            v.ToJson()};
      }
      return Value::Double(d);
    }
    case Type::kBool:
      return Value::Double(v.view().Bool() ? 1 : 0);
    case Type::kDate:
      return Value::Double(static_cast<double>(v.view().Date()));
    case Type::kString: {
      double d = 0;
      if (!ParseStrictDouble(v.view().String(), &d)) {
        return ParseFailure(v.view().String(), "Did not consume whole string.");
      }
      return Value::Double(d);
    }
    default:
      return Unsupported(v, "double");
  }
}

Converted ToDecimalValue(const Value& v) {
  switch (v.type()) {
    case Type::kDecimal128:
      return v;
    case Type::kInt32:
    case Type::kInt64:
    case Type::kDouble:
      return Value::Decimal(DecimalFromNumber(v.view()));
    case Type::kBool:
      return Value::Decimal(DecimalFromInt64(v.view().Bool() ? 1 : 0));
    case Type::kDate:
      return Value::Decimal(DecimalFromInt64(v.view().Date()));
    case Type::kString: {
      bson::Decimal128 d;
      if (!DecimalFromString(v.view().String(), &d)) {
        return ParseFailure(v.view().String(), "Failed to parse string to decimal");
      }
      return Value::Decimal(d);
    }
    default:
      return Unsupported(v, "decimal");
  }
}

Converted ToBool(const Value& v) {
  switch (v.type()) {
    case Type::kBool:
      return v;
    case Type::kInt32:
    case Type::kInt64:
    case Type::kDouble:
    case Type::kDecimal128:
      return Value::Bool(v.view().Truthy());
    default:
      return Value::Bool(true);
  }
}

Converted ToStringValue(const Value& v) {
  switch (v.type()) {
    case Type::kString:
      return v;
    case Type::kDouble:
    case Type::kInt32:
    case Type::kInt64:
    case Type::kDecimal128:
    case Type::kDate:
    case Type::kObjectId:
    case Type::kBool: {
      if (v.type() == Type::kBool) return Value::String(v.view().Bool() ? "true" : "false");
      if (v.type() == Type::kObjectId) return Value::String(v.view().Oid().ToHex());
      StatusWith<std::string> s = CoerceToString(v.view());
      if (!s.ok()) return Unsupported(v, "string");
      return Value::String(s.value());
    }
    default:
      return Unsupported(v, "string");
  }
}

Converted ToObjectId(const Value& v) {
  if (v.type() == Type::kObjectId) return v;
  if (v.type() != Type::kString) return Unsupported(v, "objectId");
  std::string_view s = v.view().String();
  bson::ObjectId oid;
  if (s.size() != 24) {
    return ConvertError{"Failed to parse objectId '" + std::string(s) +
                        "' in $convert with no onError value: Invalid string length for parsing "
                        "to OID, expected 24 but found " +
                        std::to_string(s.size())};
  }
  if (!bson::ObjectId::FromHex(s, &oid)) {
    return ConvertError{"Failed to parse objectId '" + std::string(s) +
                        "' in $convert with no onError value: Invalid character found in hex "
                        "string"};
  }
  return Value::Oid(oid);
}

Converted ToDate(const Value& v) {
  switch (v.type()) {
    case Type::kDate:
      return v;
    case Type::kInt64:
      return Value::Date(v.view().Int64());
    case Type::kDouble:
    case Type::kDecimal128: {
      double d = v.view().AsDouble();
      if (!std::isfinite(d) || d < -9.2e18 || d > 9.2e18) {
        return ConvertError{
            "Conversion would overflow target type in $convert with no onError "
            "value: " +
            v.ToJson()};
      }
      return Value::Date(static_cast<std::int64_t>(d));
    }
    case Type::kTimestamp:
    case Type::kObjectId: {
      std::int64_t millis = 0;
      ToDateMillis(v.view(), &millis);
      return Value::Date(millis);
    }
    case Type::kString: {
      std::int64_t millis = 0;
      if (!ParseDateString(v.view().String(), &millis)) {
        return ConvertError{"Error parsing date string '" + std::string(v.view().String()) +
                            "'; 0: passing a time zone identifier as part of the string is not "
                            "allowed"};
      }
      return Value::Date(millis);
    }
    default:
      return Unsupported(v, "date");
  }
}

// Target types by $convert's `to` names and numbers.
bool TargetFromValue(const Value& to, Type* type) {
  if (to.type() == Type::kString) {
    std::string_view name = to.view().String();
    if (name == "double" || name == "string" || name == "objectId" || name == "bool" ||
        name == "date" || name == "int" || name == "long" || name == "decimal") {
      return bson::TypeFromAlias(name, type);
    }
    return false;
  }
  std::int64_t code = 0;
  if (!ToInt64Exact(to.view(), &code)) return false;
  switch (code) {
    case 1:
      *type = Type::kDouble;
      return true;
    case 2:
      *type = Type::kString;
      return true;
    case 7:
      *type = Type::kObjectId;
      return true;
    case 8:
      *type = Type::kBool;
      return true;
    case 9:
      *type = Type::kDate;
      return true;
    case 16:
      *type = Type::kInt32;
      return true;
    case 18:
      *type = Type::kInt64;
      return true;
    case 19:
      *type = Type::kDecimal128;
      return true;
    default:
      return false;
  }
}

Converted ConvertTo(const Value& input, Type target) {
  switch (target) {
    case Type::kDouble:
      return ToDouble(input);
    case Type::kString:
      return ToStringValue(input);
    case Type::kObjectId:
      return ToObjectId(input);
    case Type::kBool:
      return ToBool(input);
    case Type::kDate:
      return ToDate(input);
    case Type::kInt32:
      return ToInt(input, false);
    case Type::kInt64:
      return ToInt(input, true);
    case Type::kDecimal128:
      return ToDecimalValue(input);
    default:
      return Unsupported(input, bson::TypeAlias(target));
  }
}

class ConvertExpression final : public Expression {
 public:
  ConvertExpression(ExpressionPtr input, ExpressionPtr to, ExpressionPtr on_error,
                    ExpressionPtr on_null)
      : input_(std::move(input)),
        to_(std::move(to)),
        on_error_(std::move(on_error)),
        on_null_(std::move(on_null)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    QUARRY_ASSIGN_OR_RETURN(Value to, to_->Evaluate(ctx));
    if (to.nullish()) return Value::Null();
    Type target;
    if (!TargetFromValue(to, &target)) {
      if (to.type() == Type::kString) {
        return Status(ErrorCode::kBadValue,
                      "Unknown type name: " + std::string(to.view().String()));
      }
      return Status(ErrorCode::kFailedToParse,
                    "In $convert, numeric 'to' argument is not an integer or not a valid type");
    }
    if (input.nullish()) {
      if (on_null_ != nullptr) return on_null_->Evaluate(ctx);
      return Value::Null();
    }
    Converted result = ConvertTo(input, target);
    if (std::holds_alternative<Value>(result)) return std::get<Value>(result);
    if (on_error_ != nullptr) return on_error_->Evaluate(ctx);
    return Status(ErrorCode::kConversionFailure, std::get<ConvertError>(result).message);
  }

 private:
  ExpressionPtr input_;
  ExpressionPtr to_;
  ExpressionPtr on_error_;
  ExpressionPtr on_null_;
};

StatusWith<ExpressionPtr> ParseConvert(std::string_view name, bson::ValueView args,
                                       ParseContext& ctx) {
  if (args.type() != Type::kDocument) {
    return Status(
        ErrorCode::kFailedToParse,
        "$convert expects an object of named arguments but found: " + std::string(TypeName(args)));
  }
  for (const bson::Element& e : args.Document()) {
    if (e.key != "input" && e.key != "to" && e.key != "onError" && e.key != "onNull") {
      return Status(ErrorCode::kFailedToParse,
                    "$convert found an unknown argument: " + std::string(e.key));
    }
  }
  NamedArgs named;
  for (const bson::Element& e : args.Document()) named.values[std::string(e.key)] = e.value;
  if (!named.Has("input")) {
    return Status(ErrorCode::kFailedToParse, "Missing 'input' parameter to " + std::string(name));
  }
  if (!named.Has("to")) {
    return Status(ErrorCode::kFailedToParse, "Missing 'to' parameter to " + std::string(name));
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr input, Expression::Parse(named.Get("input"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr to, Expression::Parse(named.Get("to"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr on_error, ParseOptional(named.Get("onError"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr on_null, ParseOptional(named.Get("onNull"), ctx));
  return ExpressionPtr(std::make_shared<ConvertExpression>(
      std::move(input), std::move(to), std::move(on_error), std::move(on_null)));
}

template <Type Target>
StatusWith<Value> ConvertShorthand(std::string_view, std::vector<Value>& args) {
  const Value& input = args[0];
  if (input.nullish()) return Value::Null();
  Converted result = ConvertTo(input, Target);
  if (std::holds_alternative<Value>(result)) return std::get<Value>(result);
  return Status(ErrorCode::kConversionFailure, std::get<ConvertError>(result).message);
}

}  // namespace

void AddConvertOperators(OperatorTable* table) {
  table->Add("$convert", ParseConvert);
  table->AddNary("$toString", 1, 1, ConvertShorthand<Type::kString>);
  table->AddNary("$toInt", 1, 1, ConvertShorthand<Type::kInt32>);
  table->AddNary("$toLong", 1, 1, ConvertShorthand<Type::kInt64>);
  table->AddNary("$toDouble", 1, 1, ConvertShorthand<Type::kDouble>);
  table->AddNary("$toDecimal", 1, 1, ConvertShorthand<Type::kDecimal128>);
  table->AddNary("$toBool", 1, 1, ConvertShorthand<Type::kBool>);
  table->AddNary("$toObjectId", 1, 1, ConvertShorthand<Type::kObjectId>);
  table->AddNary("$toDate", 1, 1, ConvertShorthand<Type::kDate>);
}

}  // namespace quarry::query::expr_internal
