// FieldList. A vector searched linearly: the documents expressions assemble are small, and a
// vector keeps their field order.
#include "query/value/field_list.h"

#include "bson/builder.h"

namespace quarry::query {

void FieldList::Set(std::string_view name, Value value) {
  for (auto& field : fields_) {
    if (field.first == name) {
      field.second = std::move(value);
      return;
    }
  }
  fields_.emplace_back(std::string(name), std::move(value));
}

void FieldList::Remove(std::string_view name) {
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    if (it->first == name) {
      fields_.erase(it);
      return;
    }
  }
}

void FieldList::Merge(bson::DocumentView doc, const Value& owner) {
  for (const bson::Element& e : doc) Set(e.key, owner.Child(e.value));
}

Value FieldList::ToDocument() const {
  bson::DocumentBuilder out;
  for (const auto& [name, value] : fields_) value.AppendTo(name, &out);
  return Value::FromDocument(std::move(out).Finish());
}

}  // namespace quarry::query
