// Value: one BSON value that keeps its bytes alive, as expressions, accumulators and update
// operators produce and pass around. Cheap to copy (the bytes are shared, never mutated).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "bson/builder.h"
#include "bson/value.h"

namespace quarry::query {

class Value {
 public:
  Value() = default;  // missing: no value at all (a field that does not exist)

  // Owned copies.
  static Value Copy(bson::ValueView view);
  // A value whose bytes belong to someone else. REQUIRES: they outlive this Value and all its
  // copies. Used only inside one call where the source document is known to live (an update's
  // Apply); Owned() turns it into a safe copy.
  static Value Unowned(bson::ValueView view);
  // A view into `buffer`, which this Value keeps alive. REQUIRES: `view` points into *buffer.
  static Value Shared(std::shared_ptr<const std::string> buffer, bson::ValueView view);

  // Documents and arrays from built bytes, without copying them.
  static Value FromDocument(bson::Document doc);
  static Value FromArray(bson::Document array);  // a BSON document with keys "0", "1", ...

  static Value Null();
  static Value Undefined();
  static Value Bool(bool b);
  static Value Int32(std::int32_t n);
  static Value Int64(std::int64_t n);
  static Value Double(double d);
  static Value Decimal(bson::Decimal128 d);
  static Value String(std::string_view s);
  static Value Date(std::int64_t millis);
  static Value Timestamp(std::uint64_t ts);
  static Value Oid(const bson::ObjectId& oid);
  static Value Regex(std::string_view pattern, std::string_view options);
  static Value MinKey();
  static Value MaxKey();
  // The smallest of int32, int64 that holds `n`.
  static Value Integer(std::int64_t n);

  bson::ValueView view() const { return view_; }
  bson::Type type() const { return view_.type(); }
  bool missing() const { return !view_.exists(); }
  // Null, undefined or missing: what most expressions treat as "no input".
  bool nullish() const { return missing() || view_.IsNullish(); }
  bool IsNumber() const { return view_.IsNumber(); }
  bool IsArray() const { return type() == bson::Type::kArray; }
  bool IsDocument() const { return type() == bson::Type::kDocument; }

  // A Value safe to keep beyond the lifetime of borrowed bytes (copies Unowned values only).
  Value Owned() const;
  // A value inside this one (a field or element of it) that shares this value's bytes.
  // REQUIRES: `part` points into view()'s bytes.
  Value Child(bson::ValueView part) const { return Value(owner_, part); }

  // Appends this value under `key` (nothing for a missing value).
  void AppendTo(std::string_view key, bson::DocumentBuilder* builder) const;

  // Relaxed Extended JSON, "missing" for a missing value; for error messages.
  std::string ToJson() const;

 private:
  Value(std::shared_ptr<const std::string> owner, bson::ValueView view)
      : owner_(std::move(owner)), view_(view) {}
  static Value FromBytes(bson::Type type, std::string bytes);

  std::shared_ptr<const std::string> owner_;
  bson::ValueView view_;
};

// Builds an array Value from elements (missing ones are skipped).
template <typename Range>
Value MakeArray(const Range& values) {
  bson::ArrayBuilder builder;
  for (const Value& v : values) {
    if (!v.missing()) builder.Append(v.view());
  }
  return Value::FromArray(std::move(builder).Finish());
}

}  // namespace quarry::query
