// Index bounds as mongod's explain prints them (BSONElement::toString without field names), so
// that explain output reads as it does against mongod.
#include <cstdio>
#include <string>

#include "exec/index_intervals_internal.h"

namespace quarry::exec {
namespace {

// mongod's StringBuilder::appendDoubleNice: 16 significant digits, and ".0" when that shows no
// fraction or exponent (5.0, inf.0, nan.0).
std::string ShowDouble(double value) {
  char buffer[32];
  const int length = std::snprintf(buffer, sizeof(buffer), "%.16g", value);
  std::string out(buffer, length > 0 ? static_cast<std::size_t>(length) : 0);
  if (out.find_first_of(".EN") == std::string::npos) out += ".0";
  return out;
}

std::string ShowHex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xF]);
  }
  return out;
}

// { a: 1, b: "x" } and [ 1, 2 ]; {} and [] when empty.
std::string ShowElements(bson::DocumentView elements, bool array) {
  if (elements.empty()) return array ? "[]" : "{}";
  std::string out = array ? "[ " : "{ ";
  bool first = true;
  for (const bson::Element& element : elements) {
    if (!first) out += ", ";
    first = false;
    if (!array) out.append(element.key).append(": ");
    out += ShowBound(element.value);
  }
  out += array ? " ]" : " }";
  return out;
}

}  // namespace

std::string ShowBound(bson::ValueView value) {
  switch (value.type()) {
    case bson::Type::kMinKey:
      return "MinKey";
    case bson::Type::kMaxKey:
      return "MaxKey";
    case bson::Type::kNull:
      return "null";
    case bson::Type::kEod:
    case bson::Type::kUndefined:
      return "undefined";
    case bson::Type::kInt32:
      return std::to_string(value.Int32());
    case bson::Type::kInt64:
      return std::to_string(value.Int64());
    case bson::Type::kDouble:
      return ShowDouble(value.Double());
    case bson::Type::kString:
    case bson::Type::kSymbol:
      return "\"" + std::string(value.String()) + "\"";
    case bson::Type::kBool:
      return value.Bool() ? "true" : "false";
    case bson::Type::kDate:
      return "new Date(" + std::to_string(value.Date()) + ")";
    case bson::Type::kObjectId:
      return "ObjectId('" + value.Oid().ToHex() + "')";
    case bson::Type::kTimestamp:
      return "Timestamp(" + std::to_string(value.Timestamp() >> 32) + ", " +
             std::to_string(value.Timestamp() & 0xFFFFFFFFu) + ")";
    case bson::Type::kRegex:
      return "/" + std::string(value.Regex().pattern) + "/" + std::string(value.Regex().options);
    case bson::Type::kBinary:
      return "BinData(" + std::to_string(value.Binary().subtype) + ", " +
             ShowHex(value.Binary().data) + ")";
    case bson::Type::kDocument:
      return ShowElements(value.Document(), false);
    case bson::Type::kArray:
      return ShowElements(value.Document(), true);
    default:
      return value.ToJson();
  }
}

std::string ShowInterval(const FieldInterval& interval) {
  return (interval.low.inclusive ? "[" : "(") + interval.low.shown + ", " + interval.high.shown +
         (interval.high.inclusive ? "]" : ")");
}

}  // namespace quarry::exec
