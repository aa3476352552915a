#include "exec/id_point.h"

namespace quarry::exec {
namespace {

// Records are keyed by the simple collation's order: under another collation a string _id
// matches other spellings too, so it is no point.
bool IsCollatable(bson::ValueView v) {
  return v.type() == bson::Type::kString || v.type() == bson::Type::kSymbol;
}

}  // namespace

bool IsPointValue(bson::ValueView value) {
  switch (value.type()) {
    case bson::Type::kEod:  // missing
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

std::optional<bson::ValueView> IdPoint(const query::Matcher& filter) {
  for (const query::PathCondition& condition : filter.Conjuncts()) {
    if (condition.path == "_id" && condition.op == query::CompareOp::kEq &&
        IsPointValue(condition.value) &&
        !(filter.collator() != nullptr && IsCollatable(condition.value))) {
      return condition.value;
    }
  }
  return std::nullopt;
}

}  // namespace quarry::exec
