#include "exec/id_point.h"

namespace quarry::exec {
namespace {

bool IsPointValue(bson::ValueView v) {
  switch (v.type()) {
    case bson::Type::kRegex:
    case bson::Type::kArray:
    case bson::Type::kNull:
    case bson::Type::kUndefined:
    case bson::Type::kDocument:
    case bson::Type::kMinKey:
    case bson::Type::kMaxKey:
      return false;
    default:
      return true;
  }
}

std::optional<bson::ValueView> FromCondition(bson::ValueView condition) {
  if (condition.type() == bson::Type::kDocument) {
    bson::DocumentView doc = condition.Document();
    // {$eq: v} alone; any other document is an operator set or a document value.
    if (doc.CountElements() == 1 && doc.FirstKey() == "$eq") {
      bson::ValueView v = doc.Get("$eq");
      if (IsPointValue(v)) return v;
    }
    return std::nullopt;
  }
  if (IsPointValue(condition)) return condition;
  return std::nullopt;
}

}  // namespace

std::optional<bson::ValueView> IdEqualityValue(bson::DocumentView filter) {
  for (const bson::Element& e : filter) {
    if (e.key == "_id") {
      if (auto v = FromCondition(e.value)) return v;
    } else if (e.key == "$and" && e.value.type() == bson::Type::kArray) {
      for (const bson::Element& clause : e.value.Document()) {
        if (clause.value.type() != bson::Type::kDocument) continue;
        if (auto v = IdEqualityValue(clause.value.Document())) return v;
      }
    }
  }
  return std::nullopt;
}

}  // namespace quarry::exec
