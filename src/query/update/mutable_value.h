// MutableValue: a document being edited (by update operators, $addFields...). Untouched parts
// stay as views of the original bytes; only the documents and arrays on an edited path are
// expanded into nodes, so editing one field of a large document copies little.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "bson/builder.h"
#include "bson/value.h"
#include "query/value/value.h"

namespace quarry::query {

class MutableValue {
 public:
  struct Field;

  // Constructors and Set are out of line: the vector of the still incomplete Field must not be
  // built or assigned here (clang).
  MutableValue();  // a missing value
  explicit MutableValue(Value value);
  static MutableValue NewDocument();
  static MutableValue NewArray();
  // A document to edit. The bytes must outlive the MutableValue unless `doc` owns them.
  static MutableValue OfDocument(bson::DocumentView doc);

  bool missing() const { return kind_ == Kind::kLeaf && leaf_.missing(); }
  // kDocument, kArray, or the leaf's type (kEod when missing).
  bson::Type type() const;
  bool IsDocument() const { return type() == bson::Type::kDocument; }
  bool IsArray() const { return type() == bson::Type::kArray; }

  // The value as one Value (serializing edited nodes).
  Value ToValue() const;
  // REQUIRES: IsDocument().
  bson::Document ToDocument() const;
  void AppendTo(std::string_view key, bson::DocumentBuilder* builder) const;

  // Replaces this value.
  void Set(Value value);
  void Set(MutableValue value);

  // Documents (REQUIRE IsDocument(); the node is expanded on first use).
  MutableValue* Find(std::string_view name);
  // Appends a field. REQUIRES: no field `name` yet.
  MutableValue* Append(std::string_view name, MutableValue value);
  // Replaces or appends.
  MutableValue* SetField(std::string_view name, MutableValue value);
  bool Remove(std::string_view name);
  std::vector<Field>& fields();

  // Arrays (REQUIRE IsArray()).
  std::vector<MutableValue>& elements();

 private:
  enum class Kind { kLeaf, kDocument, kArray };
  void Expand();

  Kind kind_ = Kind::kLeaf;
  Value leaf_;
  std::vector<Field> fields_;
  std::vector<MutableValue> elements_;
};

struct MutableValue::Field {
  std::string name;
  MutableValue value;
};

}  // namespace quarry::query
