// FieldList: the ordered fields of a document being assembled, as $mergeObjects and $setField
// build one.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bson/value.h"
#include "query/value/value.h"

namespace quarry::query {

// Setting an existing name replaces its value in place; a new name is appended.
class FieldList {
 public:
  void Set(std::string_view name, Value value);
  void Remove(std::string_view name);
  // Sets every field of `doc`, whose bytes `owner` keeps alive.
  void Merge(bson::DocumentView doc, const Value& owner);
  Value ToDocument() const;
  bool empty() const { return fields_.empty(); }

 private:
  std::vector<std::pair<std::string, Value>> fields_;
};

}  // namespace quarry::query
