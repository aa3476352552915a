// MutableValue: lazily expanded edit tree over BSON bytes.
#include "query/update/mutable_value.h"

namespace quarry::query {

MutableValue::MutableValue() = default;

MutableValue::MutableValue(Value value) : leaf_(std::move(value)) {}

void MutableValue::Set(MutableValue value) { *this = std::move(value); }

MutableValue MutableValue::NewDocument() {
  MutableValue v;
  v.kind_ = Kind::kDocument;
  return v;
}

MutableValue MutableValue::NewArray() {
  MutableValue v;
  v.kind_ = Kind::kArray;
  return v;
}

MutableValue MutableValue::OfDocument(bson::DocumentView doc) {
  return MutableValue(
      Value::Unowned(bson::ValueView(bson::Type::kDocument, doc.data(), doc.size())));
}

bson::Type MutableValue::type() const {
  switch (kind_) {
    case Kind::kDocument:
      return bson::Type::kDocument;
    case Kind::kArray:
      return bson::Type::kArray;
    case Kind::kLeaf:
      return leaf_.type();
  }
  return bson::Type::kEod;
}

void MutableValue::Expand() {
  if (kind_ != Kind::kLeaf) return;
  if (leaf_.IsDocument()) {
    kind_ = Kind::kDocument;
    for (const bson::Element& e : leaf_.view().Document()) {
      fields_.push_back(Field{std::string(e.key), MutableValue(leaf_.Child(e.value))});
    }
  } else if (leaf_.IsArray()) {
    kind_ = Kind::kArray;
    for (const bson::Element& e : leaf_.view().Document()) {
      elements_.emplace_back(leaf_.Child(e.value));
    }
  } else {
    return;
  }
  leaf_ = Value();
}

void MutableValue::AppendTo(std::string_view key, bson::DocumentBuilder* builder) const {
  switch (kind_) {
    case Kind::kLeaf:
      leaf_.AppendTo(key, builder);
      return;
    case Kind::kDocument:
      builder->OpenDocument(key);
      for (const Field& f : fields_) f.value.AppendTo(f.name, builder);
      builder->Close();
      return;
    case Kind::kArray: {
      builder->OpenArray(key);
      std::size_t index = 0;
      for (const MutableValue& e : elements_) {
        // A missing element would renumber the rest: arrays hold null there instead.
        if (e.missing()) {
          builder->AppendNull(std::to_string(index++));
        } else {
          e.AppendTo(std::to_string(index++), builder);
        }
      }
      builder->Close();
      return;
    }
  }
}

bson::Document MutableValue::ToDocument() const {
  if (kind_ == Kind::kLeaf) {
    if (leaf_.IsDocument()) return bson::Document::Copy(leaf_.view().Document());
    return bson::Document();
  }
  bson::DocumentBuilder builder;
  for (const Field& f : fields_) f.value.AppendTo(f.name, &builder);
  return std::move(builder).Finish();
}

Value MutableValue::ToValue() const {
  switch (kind_) {
    case Kind::kLeaf:
      return leaf_;
    case Kind::kDocument:
      return Value::FromDocument(ToDocument());
    case Kind::kArray: {
      bson::DocumentBuilder builder;
      std::size_t index = 0;
      for (const MutableValue& e : elements_) {
        if (e.missing()) {
          builder.AppendNull(std::to_string(index++));
        } else {
          e.AppendTo(std::to_string(index++), &builder);
        }
      }
      return Value::FromArray(std::move(builder).Finish());
    }
  }
  return Value();
}

void MutableValue::Set(Value value) {
  kind_ = Kind::kLeaf;
  leaf_ = std::move(value);
  fields_.clear();
  elements_.clear();
}

MutableValue* MutableValue::Find(std::string_view name) {
  Expand();
  for (Field& f : fields_) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

MutableValue* MutableValue::Append(std::string_view name, MutableValue value) {
  Expand();
  fields_.push_back(Field{std::string(name), std::move(value)});
  return &fields_.back().value;
}

MutableValue* MutableValue::SetField(std::string_view name, MutableValue value) {
  MutableValue* existing = Find(name);
  if (existing != nullptr) {
    *existing = std::move(value);
    return existing;
  }
  return Append(name, std::move(value));
}

bool MutableValue::Remove(std::string_view name) {
  Expand();
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    if (it->name == name) {
      fields_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<MutableValue::Field>& MutableValue::fields() {
  Expand();
  return fields_;
}

std::vector<MutableValue>& MutableValue::elements() {
  Expand();
  return elements_;
}

}  // namespace quarry::query
