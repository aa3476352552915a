// String expressions: $concat $substr $substrBytes $substrCP $toLower $toUpper $strLenBytes
// $strLenCP $split $trim $ltrim $rtrim $indexOfBytes $indexOfCP $strcasecmp.
#include <cctype>
#include <optional>

#include "query/expression/expression_internal.h"
#include "query/value/value_arithmetic.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

// Strings an expression builds stay within a BSON document's size.
constexpr std::size_t kMaxStringBytes = 16 * 1024 * 1024;

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

StatusWith<Value> Concat(std::string_view, std::vector<Value>& args) {
  std::string out;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (v.type() != Type::kString) {
      return LocationError(16702, "$concat only supports strings, not " + std::string(TypeName(v)));
    }
    out.append(v.view().String());
    if (out.size() > kMaxStringBytes) {
      return Status(ErrorCode::kBSONObjectTooLarge,
                    "$concat would create a string larger than the maximum BSON size");
    }
  }
  return Value::String(out);
}

StatusWith<Value> SubstrBytes(std::string_view name, std::vector<Value>& args) {
  QUARRY_ASSIGN_OR_RETURN(std::string s, CoerceToString(args[0].view()));
  const Value& start_v = args[1];
  const Value& length_v = args[2];
  if (!start_v.IsNumber()) {
    return LocationError(16034, std::string(name) +
                                    ":  starting index must be a numeric type (is BSON "
                                    "type " +
                                    std::string(TypeName(start_v)) + ")");
  }
  if (!length_v.IsNumber()) {
    return LocationError(16035, std::string(name) +
                                    ":  length must be a numeric type (is BSON type " +
                                    std::string(TypeName(length_v)) + ")");
  }
  std::int64_t start = start_v.view().AsInt64();
  std::int64_t length = length_v.view().AsInt64();
  if (start < 0) {
    return LocationError(
        50752, std::string(name) +
                   ":  starting index must be non-negative (got: " + std::to_string(start) + ")");
  }
  const auto size = static_cast<std::int64_t>(s.size());
  if (start >= size) return Value::String("");
  if (IsContinuation(s[static_cast<std::size_t>(start)])) {
    return LocationError(28656, std::string(name) +
                                    ":  Invalid range, starting index is a UTF-8 continuation "
                                    "byte.");
  }
  std::int64_t end = (length < 0 || length > size - start) ? size : start + length;
  if (end < size && IsContinuation(s[static_cast<std::size_t>(end)])) {
    return LocationError(28657, std::string(name) +
                                    ":  Invalid range, ending index is in the middle of a UTF-8 "
                                    "character.");
  }
  return Value::String(std::string_view(s).substr(static_cast<std::size_t>(start),
                                                  static_cast<std::size_t>(end - start)));
}

StatusWith<Value> SubstrCP(std::string_view, std::vector<Value>& args) {
  QUARRY_ASSIGN_OR_RETURN(std::string s, CoerceToString(args[0].view()));
  const Value& start_v = args[1];
  const Value& length_v = args[2];
  if (!start_v.IsNumber()) {
    return LocationError(34450, "$substrCP: starting index must be a numeric type (is BSON type " +
                                    std::string(TypeName(start_v)) + ")");
  }
  if (!length_v.IsNumber()) {
    return LocationError(34451, "$substrCP: length must be a numeric type (is BSON type " +
                                    std::string(TypeName(length_v)) + ")");
  }
  std::int64_t start = 0;
  std::int64_t length = 0;
  if (!ToInt64Exact(start_v.view(), &start) || start > INT32_MAX || start < INT32_MIN) {
    return LocationError(34452,
                         "$substrCP: starting index cannot be represented as a 32-bit integral "
                         "value");
  }
  if (!ToInt64Exact(length_v.view(), &length) || length > INT32_MAX || length < INT32_MIN) {
    return LocationError(34453,
                         "$substrCP: length cannot be represented as a 32-bit integral value");
  }
  if (start < 0) {
    return LocationError(34455, "$substrCP: the starting index must be nonnegative integer.");
  }
  if (length < 0) return LocationError(34454, "$substrCP: length must be a nonnegative integer.");
  std::size_t pos = 0;
  std::int64_t cp = 0;
  while (pos < s.size() && cp < start) {
    ++pos;
    while (pos < s.size() && IsContinuation(s[pos])) ++pos;
    ++cp;
  }
  std::size_t begin = pos;
  cp = 0;
  while (pos < s.size() && cp < length) {
    ++pos;
    while (pos < s.size() && IsContinuation(s[pos])) ++pos;
    ++cp;
  }
  return Value::String(std::string_view(s).substr(begin, pos - begin));
}

template <bool Upper>
StatusWith<Value> ChangeCase(std::string_view, std::vector<Value>& args) {
  QUARRY_ASSIGN_OR_RETURN(std::string s, CoerceToString(args[0].view()));
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x80) {
      c = static_cast<char>(Upper ? std::toupper(static_cast<unsigned char>(c))
                                  : std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return Value::String(s);
}

StatusWith<Value> StrLenBytes(std::string_view, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.type() != Type::kString) {
    return LocationError(
        34473, "$strLenBytes requires a string argument, found: " + std::string(TypeName(v)));
  }
  std::size_t n = v.view().String().size();
  if (n > INT32_MAX)
    return LocationError(34470, "string length could not be represented as an int.");
  return Value::Int32(static_cast<std::int32_t>(n));
}

std::int32_t CountCodePoints(std::string_view s) {
  std::int32_t n = 0;
  for (char c : s) {
    if (!IsContinuation(c)) ++n;
  }
  return n;
}

StatusWith<Value> StrLenCP(std::string_view, std::vector<Value>& args) {
  const Value& v = args[0];
  if (v.type() != Type::kString) {
    return LocationError(
        34471, "$strLenCP requires a string argument, found: " + std::string(TypeName(v)));
  }
  return Value::Int32(CountCodePoints(v.view().String()));
}

StatusWith<Value> Split(std::string_view, std::vector<Value>& args) {
  const Value& input = args[0];
  const Value& delimiter = args[1];
  if (input.nullish() || delimiter.nullish()) return Value::Null();
  if (input.type() != Type::kString) {
    return LocationError(40085,
                         "$split requires an expression that evaluates to a string as a first "
                         "argument, found: " +
                             std::string(TypeName(input)));
  }
  if (delimiter.type() != Type::kString) {
    return LocationError(40086,
                         "$split requires an expression that evaluates to a string as a second "
                         "argument, found: " +
                             std::string(TypeName(delimiter)));
  }
  std::string_view s = input.view().String();
  std::string_view d = delimiter.view().String();
  if (d.empty()) return LocationError(40087, "$split requires a non-empty separator");
  bson::ArrayBuilder out;
  std::size_t start = 0;
  while (true) {
    std::size_t found = s.find(d, start);
    if (found == std::string_view::npos) {
      out.AppendString(s.substr(start));
      break;
    }
    out.AppendString(s.substr(start, found - start));
    start = found + d.size();
  }
  return Value::FromArray(std::move(out).Finish());
}

// ---- $trim, $ltrim, $rtrim ----

// Splits UTF-8 into code points (as byte strings).
std::vector<std::string_view> CodePoints(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t begin = pos++;
    while (pos < s.size() && IsContinuation(s[pos])) ++pos;
    out.push_back(s.substr(begin, pos - begin));
  }
  return out;
}

const std::vector<std::string>& DefaultTrimCodePoints() {
  static const std::vector<std::string>* points = [] {
    auto* v = new std::vector<std::string>{std::string(1, '\0'),
                                           " ",
                                           "\t",
                                           "\n",
                                           "\v",
                                           "\f",
                                           "\r",
                                           "\xC2\xA0",
                                           "\xE1\x9A\x80",
                                           "\xE2\x80\xA8",
                                           "\xE2\x80\xA9",
                                           "\xE2\x80\xAF",
                                           "\xE2\x81\x9F",
                                           "\xE3\x80\x80"};
    for (int i = 0x2000; i <= 0x200A; ++i) {  // EN QUAD .. HAIR SPACE
      std::string cp;
      cp.push_back(static_cast<char>(0xE2));
      cp.push_back(static_cast<char>(0x80));
      cp.push_back(static_cast<char>(0x80 | (i & 0x3F)));
      v->push_back(cp);
    }
    return v;
  }();
  return *points;
}

class TrimExpression final : public Expression {
 public:
  TrimExpression(std::string name, bool left, bool right, ExpressionPtr input, ExpressionPtr chars)
      : name_(std::move(name)),
        left_(left),
        right_(right),
        input_(std::move(input)),
        chars_(std::move(chars)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    if (input.nullish()) return Value::Null();
    if (input.type() != Type::kString) {
      return LocationError(50699, name_ + " requires its input to be a string, got " +
                                      input.ToJson() + " (of type " + std::string(TypeName(input)) +
                                      ") instead.");
    }
    std::vector<std::string> trim_set;
    if (chars_ != nullptr) {
      QUARRY_ASSIGN_OR_RETURN(Value chars, chars_->Evaluate(ctx));
      if (chars.nullish()) return Value::Null();
      if (chars.type() != Type::kString) {
        return LocationError(50700, name_ + " requires 'chars' to be a string, got " +
                                        chars.ToJson() + " (of type " +
                                        std::string(TypeName(chars)) + ") instead.");
      }
      for (std::string_view cp : CodePoints(chars.view().String())) trim_set.emplace_back(cp);
    } else {
      trim_set = DefaultTrimCodePoints();
    }
    auto in_set = [&](std::string_view cp) {
      for (const std::string& t : trim_set) {
        if (t == cp) return true;
      }
      return false;
    };
    std::vector<std::string_view> points = CodePoints(input.view().String());
    std::size_t begin = 0;
    std::size_t end = points.size();
    if (left_) {
      while (begin < end && in_set(points[begin])) ++begin;
    }
    if (right_) {
      while (end > begin && in_set(points[end - 1])) --end;
    }
    std::string out;
    for (std::size_t cp_idx = begin; cp_idx < end; ++cp_idx) out.append(points[cp_idx]);
    return Value::String(out);
  }

 private:
  std::string name_;
  bool left_;
  bool right_;
  ExpressionPtr input_;
  ExpressionPtr chars_;
};

StatusWith<ExpressionPtr> ParseTrim(std::string_view name, bson::ValueView args,
                                    ParseContext& ctx) {
  if (args.type() != Type::kDocument) {
    return LocationError(50696, std::string(name) +
                                    " only supports an object as an argument, found: " +
                                    std::string(TypeName(args)));
  }
  bson::ValueView input;
  bson::ValueView chars;
  for (const bson::Element& e : args.Document()) {
    if (e.key == "input") {
      input = e.value;
    } else if (e.key == "chars") {
      chars = e.value;
    } else {
      return LocationError(50694,
                           std::string(name) + " found an unknown argument: " + std::string(e.key));
    }
  }
  if (!input.exists()) {
    return LocationError(50695, std::string(name) + " requires an 'input' field");
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr input_expr, Expression::Parse(input, ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr chars_expr, ParseOptional(chars, ctx));
  bool left = name != "$rtrim";
  bool right = name != "$ltrim";
  return ExpressionPtr(std::make_shared<TrimExpression>(
      std::string(name), left, right, std::move(input_expr), std::move(chars_expr)));
}

// ---- $indexOfBytes / $indexOfCP ----

template <bool CodePointUnits>
StatusWith<Value> IndexOf(std::string_view name, std::vector<Value>& args) {
  const Value& input = args[0];
  if (input.nullish()) return Value::Null();
  if (input.type() != Type::kString) {
    return LocationError(40091, std::string(name) +
                                    " requires a string as the first argument, found: " +
                                    std::string(TypeName(input)));
  }
  const Value& token = args[1];
  if (token.type() != Type::kString) {
    return LocationError(40092, std::string(name) +
                                    " requires a string as the second argument, found: " +
                                    std::string(TypeName(token)));
  }
  std::int64_t bounds[2] = {0, -1};
  for (std::size_t arg_idx = 2; arg_idx < args.size(); ++arg_idx) {
    const Value& b = args[arg_idx];
    std::int64_t n = 0;
    if (!ToInt64Exact(b.view(), &n)) {
      return LocationError(40096, std::string(name) + " requires an integral " +
                                      (arg_idx == 2 ? "starting index" : "ending index") +
                                      ", found a value of type: " + std::string(TypeName(b)) +
                                      ", with value: " + b.ToJson());
    }
    if (n < 0) {
      return LocationError(40097, std::string(name) + " requires a nonnegative " +
                                      (arg_idx == 2 ? "start index" : "ending index") +
                                      ", found: " + std::to_string(n));
    }
    bounds[arg_idx - 2] = n;
  }
  std::string_view s = input.view().String();
  std::string_view t = token.view().String();
  if (!CodePointUnits) {
    auto start = static_cast<std::size_t>(bounds[0]);
    std::size_t end = bounds[1] < 0 ? s.size() : std::min<std::size_t>(s.size(), bounds[1]);
    if (start > end || start > s.size()) return Value::Int32(-1);
    std::size_t found = s.substr(0, end).find(t, start);
    if (found == std::string_view::npos || found + t.size() > end) return Value::Int32(-1);
    return Value::Int32(static_cast<std::int32_t>(found));
  }
  std::vector<std::string_view> points = CodePoints(s);
  std::vector<std::string_view> token_points = CodePoints(t);
  auto start = static_cast<std::size_t>(bounds[0]);
  std::size_t end = bounds[1] < 0 ? points.size() : std::min<std::size_t>(points.size(), bounds[1]);
  for (std::size_t i = start; i <= end && i + token_points.size() <= end; ++i) {
    bool match = true;
    for (std::size_t j = 0; j < token_points.size() && match; ++j) {
      match = points[i + j] == token_points[j];
    }
    if (match) return Value::Int32(static_cast<std::int32_t>(i));
  }
  return Value::Int32(-1);
}

StatusWith<Value> StrCaseCmp(std::string_view, std::vector<Value>& args) {
  QUARRY_ASSIGN_OR_RETURN(std::string a, CoerceToString(args[0].view()));
  QUARRY_ASSIGN_OR_RETURN(std::string b, CoerceToString(args[1].view()));
  for (char& c : a) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (char& c : b) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int c = a.compare(b);
  return Value::Int32(c < 0 ? -1 : (c > 0 ? 1 : 0));
}

}  // namespace

void AddStringOperators(OperatorTable* table) {
  table->AddNary("$concat", 0, -1, Concat);
  table->AddNary("$substr", 3, 3, SubstrBytes);
  table->AddNary("$substrBytes", 3, 3, SubstrBytes);
  table->AddNary("$substrCP", 3, 3, SubstrCP);
  table->AddNary("$toLower", 1, 1, ChangeCase<false>);
  table->AddNary("$toUpper", 1, 1, ChangeCase<true>);
  table->AddNary("$strLenBytes", 1, 1, StrLenBytes);
  table->AddNary("$strLenCP", 1, 1, StrLenCP);
  table->AddNary("$split", 2, 2, Split);
  table->Add("$trim", ParseTrim);
  table->Add("$ltrim", ParseTrim);
  table->Add("$rtrim", ParseTrim);
  table->AddNary("$indexOfBytes", 2, 4, IndexOf<false>);
  table->AddNary("$indexOfCP", 2, 4, IndexOf<true>);
  table->AddNary("$strcasecmp", 2, 2, StrCaseCmp);
}

}  // namespace quarry::query::expr_internal
