// Arithmetic expressions: $add $subtract $multiply $divide $mod $abs $ceil $floor $round $trunc
// $sqrt $pow $exp $ln $log $log10.
#include <cmath>
#include <limits>

#include "query/expression/expression_internal.h"
#include "query/value/value_arithmetic.h"
#include "query/value/value_decimal.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

// Milliseconds to add to a date: numbers are rounded to the nearest integer. False when the
// number is not finite or does not fit.
bool DurationMillis(const Value& v, std::int64_t* out) {
  switch (v.type()) {
    case Type::kInt32:
    case Type::kInt64:
      *out = v.view().AsInt64();
      return true;
    default: {
      double d = v.view().AsDouble();
      if (!std::isfinite(d) || d >= 9.2e18 || d <= -9.2e18) return false;
      *out = std::llround(d);
      return true;
    }
  }
}

// date + millis (or - millis), failing as mongod does when the result leaves the int64 range.
StatusWith<Value> ShiftDate(std::int64_t date, const Value& amount, bool subtract,
                            std::string_view op) {
  std::int64_t millis = 0;
  std::int64_t result = 0;
  if (!DurationMillis(amount, &millis) ||
      (subtract ? __builtin_sub_overflow(date, millis, &result)
                : __builtin_add_overflow(date, millis, &result))) {
    return Status(ErrorCode::kOverflow, "date overflow in " + std::string(op));
  }
  return Value::Date(result);
}

StatusWith<Value> Add(std::string_view, std::vector<Value>& args) {
  Value total = Value::Int32(0);
  bool have_date = false;
  std::int64_t date = 0;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (v.type() == Type::kDate) {
      if (have_date) return LocationError(16612, "only one date allowed in an $add expression");
      have_date = true;
      date = v.view().Date();
    } else if (v.IsNumber()) {
      total = Arithmetic(ArithmeticOp::kAdd, total.view(), v.view());
    } else {
      return LocationError(
          16554, "$add only supports numeric or date types, not " + std::string(TypeName(v)));
    }
  }
  if (have_date) return ShiftDate(date, total, false, "$add");
  return total;
}

StatusWith<Value> Subtract(std::string_view, std::vector<Value>& args) {
  const Value& a = args[0];
  const Value& b = args[1];
  if (a.nullish() || b.nullish()) return Value::Null();
  if (a.IsNumber() && b.IsNumber()) return Arithmetic(ArithmeticOp::kSubtract, a.view(), b.view());
  if (a.type() == Type::kDate) {
    if (b.type() == Type::kDate) {
      std::int64_t diff = 0;
      if (__builtin_sub_overflow(a.view().Date(), b.view().Date(), &diff)) {
        return Status(ErrorCode::kOverflow, "date overflow in $subtract");
      }
      return Value::Int64(diff);
    }
    if (b.IsNumber()) return ShiftDate(a.view().Date(), b, true, "$subtract");
  }
  return Status(ErrorCode::kTypeMismatch, "can't $subtract " + std::string(TypeName(b)) + " from " +
                                              std::string(TypeName(a)));
}

StatusWith<Value> Multiply(std::string_view, std::vector<Value>& args) {
  Value product = Value::Int32(1);
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.IsNumber()) {
      return LocationError(
          16555, "$multiply only supports numeric types, not " + std::string(TypeName(v)));
    }
    product = Arithmetic(ArithmeticOp::kMultiply, product.view(), v.view());
  }
  return product;
}

bool IsZero(const Value& v) {
  if (v.type() == Type::kDecimal128) return DecimalIsZero(v.view().Dec128());
  return v.view().AsDouble() == 0;
}

StatusWith<Value> Divide(std::string_view, std::vector<Value>& args) {
  const Value& a = args[0];
  const Value& b = args[1];
  if (a.nullish() || b.nullish()) return Value::Null();
  if (!a.IsNumber() || !b.IsNumber()) {
    return LocationError(16609, "$divide only supports numeric types, not " +
                                    std::string(TypeName(a)) + " and " + std::string(TypeName(b)));
  }
  if (IsZero(b)) return LocationError(16608, "can't $divide by zero");
  if (a.type() == Type::kDecimal128 || b.type() == Type::kDecimal128) {
    return Value::Decimal(DecimalArithmetic(DecimalOp::kDivide, DecimalFromNumber(a.view()),
                                            DecimalFromNumber(b.view())));
  }
  return Value::Double(a.view().AsDouble() / b.view().AsDouble());
}

StatusWith<Value> Mod(std::string_view, std::vector<Value>& args) {
  const Value& a = args[0];
  const Value& b = args[1];
  if (a.nullish() || b.nullish()) return Value::Null();
  if (!a.IsNumber() || !b.IsNumber()) {
    return LocationError(16611, "$mod only supports numeric types, not " +
                                    std::string(TypeName(a)) + " and " + std::string(TypeName(b)));
  }
  if (IsZero(b)) return LocationError(16610, "can't $mod by zero");
  const Type type = WiderNumericType(a.type(), b.type());
  if (type == Type::kDecimal128) {
    return Value::Decimal(DecimalFromDouble(std::fmod(a.view().AsDouble(), b.view().AsDouble())));
  }
  if (type == Type::kDouble)
    return Value::Double(std::fmod(a.view().AsDouble(), b.view().AsDouble()));
  std::int64_t x = a.view().AsInt64();
  std::int64_t y = b.view().AsInt64();
  std::int64_t r = (y == -1) ? 0 : x % y;
  if (type == Type::kInt32) return Value::Int32(static_cast<std::int32_t>(r));
  return Value::Int64(r);
}

Status NotNumeric(std::string_view name, const Value& v) {
  return LocationError(
      28765, std::string(name) + " only supports numeric types, not " + std::string(TypeName(v)));
}

StatusWith<Value> Abs(std::string_view name, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsNumber()) return NotNumeric(name, v);
  switch (v.type()) {
    case Type::kInt32: {
      std::int64_t n = v.view().Int32();
      return Value::Integer(n < 0 ? -n : n);
    }
    case Type::kInt64: {
      std::int64_t n = v.view().Int64();
      if (n == std::numeric_limits<std::int64_t>::min()) {
        return LocationError(28680, "can't take $abs of long long min");
      }
      return Value::Int64(n < 0 ? -n : n);
    }
    case Type::kDecimal128: {
      bson::Decimal128 d = v.view().Dec128();
      d.high &= ~(1ULL << 63);
      return Value::Decimal(d);
    }
    default:
      return Value::Double(std::fabs(v.view().Double()));
  }
}

template <double (*Fn)(double)>
StatusWith<Value> Rounding(std::string_view name, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsNumber()) return NotNumeric(name, v);
  switch (v.type()) {
    case Type::kInt32:
    case Type::kInt64:
      return v;
    case Type::kDecimal128:
      return Value::Decimal(DecimalFromDouble(Fn(DecimalToDouble(v.view().Dec128()))));
    default:
      return Value::Double(Fn(v.view().Double()));
  }
}

double Ceil(double d) { return std::ceil(d); }
double Floor(double d) { return std::floor(d); }

// $round and $trunc: [number, place].
StatusWith<Value> RoundOrTrunc(std::string_view name, std::vector<Value>& args, bool truncate) {
  const Value& v = args[0];
  std::int64_t place = 0;
  if (args.size() > 1) {
    const Value& p = args[1];
    if (p.nullish()) return Value::Null();
    if (!ToInt64Exact(p.view(), &place)) {
      return LocationError(51082, "place must be an integral value, but was " + p.ToJson());
    }
    if (place < -20 || place > 100) {
      return LocationError(51083, "cannot apply " + std::string(name) + " with precision value " +
                                      std::to_string(place) + " value must be in [-20, 100]");
    }
  }
  if (v.nullish()) return Value::Null();
  if (!v.IsNumber()) {
    return LocationError(
        51081, std::string(name) + " only supports numeric types, not " + std::string(TypeName(v)));
  }
  const int digits = static_cast<int>(place);
  switch (v.type()) {
    case Type::kInt32:
    case Type::kInt64: {
      if (digits >= 0) return v;
      std::int64_t n = v.view().AsInt64();
      std::int64_t scale = 1;
      for (int i = 0; i < -digits && i < 19; ++i) scale *= 10;
      if (-digits > 18) return v.type() == Type::kInt32 ? Value::Int32(0) : Value::Int64(0);
      std::int64_t q = n / scale;
      std::int64_t r = n % scale;
      if (!truncate) {
        std::int64_t twice = (r < 0 ? -r : r) * 2;
        if (twice > scale || (twice == scale && (q % 2) != 0)) q += (n < 0 ? -1 : 1);
      }
      std::int64_t result = 0;
      if (__builtin_mul_overflow(q, scale, &result)) {
        return Value::Double(static_cast<double>(q) * static_cast<double>(scale));
      }
      if (v.type() == Type::kInt32) return Value::Integer(result);
      return Value::Int64(result);
    }
    case Type::kDecimal128:
      return Value::Decimal(DecimalRoundToPlace(v.view().Dec128(), digits, truncate));
    default: {
      double d = v.view().Double();
      if (!std::isfinite(d)) return v;
      // Through 15 significant digits, as mongod does, so 2.675 rounds like the decimal 2.675.
      bson::Decimal128 rounded = DecimalRoundToPlace(DecimalFromDouble(d), digits, truncate);
      double r = DecimalToDouble(rounded);
      if (r == 0 && std::signbit(d)) r = -0.0;
      return Value::Double(r);
    }
  }
}

StatusWith<Value> Round(std::string_view name, std::vector<Value>& args) {
  return RoundOrTrunc(name, args, false);
}
StatusWith<Value> Trunc(std::string_view name, std::vector<Value>& args) {
  return RoundOrTrunc(name, args, true);
}

// The result of a real function: decimal for decimal input, else double.
Value RealResult(const Value& input, double r) {
  if (input.type() == Type::kDecimal128) return Value::Decimal(DecimalFromDouble(r));
  return Value::Double(r);
}

StatusWith<Value> Sqrt(std::string_view, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsNumber()) {
    return LocationError(28765,
                         "$sqrt only supports numeric types, not " + std::string(TypeName(v)));
  }
  double d = v.view().AsDouble();
  if (d < 0) return LocationError(28714, "$sqrt's argument must be greater than or equal to 0");
  return RealResult(v, std::sqrt(d));
}

StatusWith<Value> Exp(std::string_view name, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsNumber()) return NotNumeric(name, v);
  return RealResult(v, std::exp(v.view().AsDouble()));
}

StatusWith<Value> Ln(std::string_view name, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsNumber()) return NotNumeric(name, v);
  double d = v.view().AsDouble();
  if (!(d > 0)) {
    return LocationError(28766, "$ln's argument must be a positive number, but " + v.ToJson());
  }
  return RealResult(v, std::log(d));
}

StatusWith<Value> Log10(std::string_view name, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.nullish()) return Value::Null();
  if (!v.IsNumber()) return NotNumeric(name, v);
  double d = v.view().AsDouble();
  if (!(d > 0)) {
    return LocationError(28761, "$log10's argument must be a positive number, but " + v.ToJson());
  }
  return RealResult(v, std::log10(d));
}

StatusWith<Value> Log(std::string_view, std::vector<Value>& args) {
  const Value& v = args[0];
  const Value& base = args[1];
  if (v.nullish() || base.nullish()) return Value::Null();
  if (!v.IsNumber()) {
    return LocationError(28756, "$log's argument must be numeric, not " + std::string(TypeName(v)));
  }
  if (!base.IsNumber()) {
    return LocationError(28757, "$log's base must be numeric, not " + std::string(TypeName(base)));
  }
  double d = v.view().AsDouble();
  double b = base.view().AsDouble();
  if (!(d > 0)) {
    return LocationError(28758, "$log's argument must be a positive number, but " + v.ToJson());
  }
  if (!(b > 0) || b == 1) {
    return LocationError(
        28759, "$log's base must be a positive number not equal to 1, but " + base.ToJson());
  }
  const Value& kind = v.type() == Type::kDecimal128 ? v : base;
  return RealResult(kind, std::log(d) / std::log(b));
}

StatusWith<Value> Pow(std::string_view, std::vector<Value>& args) {
  const Value& base = args[0];
  const Value& exp = args[1];
  if (base.nullish() || exp.nullish()) return Value::Null();
  if (!base.IsNumber()) {
    return LocationError(28762, "$pow's base must be numeric, not " + std::string(TypeName(base)));
  }
  if (!exp.IsNumber()) {
    return LocationError(28763,
                         "$pow's exponent must be numeric, not " + std::string(TypeName(exp)));
  }
  const double b = base.view().AsDouble();
  const double e = exp.view().AsDouble();
  if (b == 0 && e < 0) {
    return LocationError(28764, "$pow cannot take a base of 0 and a negative exponent");
  }
  const Type type = WiderNumericType(base.type(), exp.type());
  if (type == Type::kDecimal128) return Value::Decimal(DecimalFromDouble(std::pow(b, e)));
  if (type == Type::kDouble) return Value::Double(std::pow(b, e));
  // Both integers.
  std::int64_t x = base.view().AsInt64();
  std::int64_t n = exp.view().AsInt64();
  if (n < 0) {
    if (x == 1) return type == Type::kInt32 ? Value::Int32(1) : Value::Int64(1);
    if (x == -1) {
      std::int64_t r = (n % 2 == 0) ? 1 : -1;
      return type == Type::kInt32 ? Value::Int32(static_cast<std::int32_t>(r)) : Value::Int64(r);
    }
    return Value::Double(std::pow(b, e));
  }
  if (x == -1) {  // (-1)^n alternates: no loop over a huge exponent
    std::int64_t r = (n % 2 == 0) ? 1 : -1;
    return type == Type::kInt32 ? Value::Int32(static_cast<std::int32_t>(r)) : Value::Int64(r);
  }
  std::int64_t result = 1;
  bool overflow = false;
  for (std::int64_t i = 0; i < n && !overflow; ++i) {
    overflow = __builtin_mul_overflow(result, x, &result);
    if (result == 0 || result == 1) break;  // 0^n, 1^n
  }
  if (overflow) return Value::Double(std::pow(b, e));
  if (type == Type::kInt32) return Value::Integer(result);
  return Value::Int64(result);
}

}  // namespace

void AddArithmeticOperators(OperatorTable* table) {
  table->AddNary("$add", 0, -1, Add);
  table->AddNary("$subtract", 2, 2, Subtract);
  table->AddNary("$multiply", 0, -1, Multiply);
  table->AddNary("$divide", 2, 2, Divide);
  table->AddNary("$mod", 2, 2, Mod);
  table->AddNary("$abs", 1, 1, Abs);
  table->AddNary("$ceil", 1, 1, Rounding<Ceil>);
  table->AddNary("$floor", 1, 1, Rounding<Floor>);
  table->AddNary("$round", 1, 2, Round);
  table->AddNary("$trunc", 1, 2, Trunc);
  table->AddNary("$sqrt", 1, 1, Sqrt);
  table->AddNary("$exp", 1, 1, Exp);
  table->AddNary("$ln", 1, 1, Ln);
  table->AddNary("$log", 2, 2, Log);
  table->AddNary("$log10", 1, 1, Log10);
  table->AddNary("$pow", 2, 2, Pow);
}

}  // namespace quarry::query::expr_internal
