// Value construction: each value's bytes are exactly a BSON element's value part.
#include "query/value/value.h"

#include <cstring>

namespace quarry::query {
namespace {

const char kNoBytes[1] = {0};

template <typename T>
std::string RawBytes(T value) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

std::string StringBytes(std::string_view s) {
  std::string bytes = RawBytes(static_cast<std::int32_t>(s.size() + 1));
  bytes.append(s);
  bytes.push_back('\0');
  return bytes;
}

}  // namespace

Value Value::FromBytes(bson::Type type, std::string bytes) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  bson::ValueView view(type, owner->data(), owner->size());
  return Value(std::move(owner), view);
}

Value Value::Copy(bson::ValueView view) {
  if (!view.exists()) return Value();
  if (view.size() == 0) return Value(nullptr, bson::ValueView(view.type(), kNoBytes, 0));
  return FromBytes(view.type(), std::string(view.data(), view.size()));
}

Value Value::Unowned(bson::ValueView view) { return Value(nullptr, view); }

Value Value::Shared(std::shared_ptr<const std::string> buffer, bson::ValueView view) {
  return Value(std::move(buffer), view);
}

Value Value::FromDocument(bson::Document doc) {
  return FromBytes(bson::Type::kDocument, std::move(doc).TakeBytes());
}

Value Value::FromArray(bson::Document array) {
  return FromBytes(bson::Type::kArray, std::move(array).TakeBytes());
}

Value Value::Null() { return Value(nullptr, bson::ValueView(bson::Type::kNull, kNoBytes, 0)); }
Value Value::Undefined() {
  return Value(nullptr, bson::ValueView(bson::Type::kUndefined, kNoBytes, 0));
}
Value Value::MinKey() { return Value(nullptr, bson::ValueView(bson::Type::kMinKey, kNoBytes, 0)); }
Value Value::MaxKey() { return Value(nullptr, bson::ValueView(bson::Type::kMaxKey, kNoBytes, 0)); }

Value Value::Bool(bool b) {
  static const char kTrue[1] = {1};
  static const char kFalse[1] = {0};
  return Value(nullptr, bson::ValueView(bson::Type::kBool, b ? kTrue : kFalse, 1));
}

Value Value::Int32(std::int32_t n) { return FromBytes(bson::Type::kInt32, RawBytes(n)); }
Value Value::Int64(std::int64_t n) { return FromBytes(bson::Type::kInt64, RawBytes(n)); }
Value Value::Double(double d) { return FromBytes(bson::Type::kDouble, RawBytes(d)); }
Value Value::Date(std::int64_t millis) { return FromBytes(bson::Type::kDate, RawBytes(millis)); }
Value Value::Timestamp(std::uint64_t ts) { return FromBytes(bson::Type::kTimestamp, RawBytes(ts)); }

Value Value::Decimal(bson::Decimal128 d) {
  std::string bytes = RawBytes(d.low);
  bytes.append(RawBytes(d.high));
  return FromBytes(bson::Type::kDecimal128, std::move(bytes));
}

Value Value::String(std::string_view s) { return FromBytes(bson::Type::kString, StringBytes(s)); }

Value Value::Oid(const bson::ObjectId& oid) {
  return FromBytes(bson::Type::kObjectId,
                   std::string(reinterpret_cast<const char*>(oid.bytes), 12));
}

Value Value::Regex(std::string_view pattern, std::string_view options) {
  std::string bytes(pattern);
  bytes.push_back('\0');
  bytes.append(options);
  bytes.push_back('\0');
  return FromBytes(bson::Type::kRegex, std::move(bytes));
}

Value Value::Integer(std::int64_t n) {
  if (n >= INT32_MIN && n <= INT32_MAX) return Int32(static_cast<std::int32_t>(n));
  return Int64(n);
}

Value Value::Owned() const {
  if (owner_ != nullptr || missing() || view_.size() == 0) return *this;
  return Copy(view_);
}

void Value::AppendTo(std::string_view key, bson::DocumentBuilder* builder) const {
  if (!missing()) builder->Append(key, view_);
}

std::string Value::ToJson() const { return missing() ? "missing" : view_.ToJson(); }

}  // namespace quarry::query
