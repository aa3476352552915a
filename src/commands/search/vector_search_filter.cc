#include "commands/search/vector_search_filter.h"

#include <string>

#include "catalog/uuid.h"

namespace quarry::commands {
namespace {

Status Unsupported(std::string what) {
  return Status(ErrorCode::kBadValue,
                std::move(what) + " is not supported in a $vectorSearch filter");
}

bool IsFilterableScalar(bson::ValueView value) {
  switch (value.type()) {
    case bson::Type::kBool:
    case bson::Type::kInt32:
    case bson::Type::kInt64:
    case bson::Type::kDouble:
    case bson::Type::kString:
    case bson::Type::kDate:
    case bson::Type::kObjectId:
      return true;
    case bson::Type::kBinary:
      return value.Binary().subtype == catalog::kUuidBinarySubtype;
    default:
      return false;
  }
}

Status CheckOperand(bson::ValueView value, const std::string& path) {
  if (IsFilterableScalar(value)) return Status::OK();
  if (value.type() == bson::Type::kArray) {
    for (const bson::Element& e : value.Document()) {
      if (!IsFilterableScalar(e.value)) {
        return Unsupported("the value " + e.value.ToJson() + " (on '" + path + "')");
      }
    }
    return Status::OK();
  }
  return Unsupported("the value " + value.ToJson() + " (on '" + path + "')");
}

Status CheckCondition(bson::DocumentView condition, const std::string& path) {
  for (const bson::Element& e : condition) {
    const std::string op(e.key);
    if (op == "$eq" || op == "$ne" || op == "$gt" || op == "$gte" || op == "$lt" || op == "$lte") {
      QUARRY_RETURN_IF_ERROR(CheckOperand(e.value, path));
    } else if (op == "$in" || op == "$nin") {
      if (e.value.type() != bson::Type::kArray) {
        return Status(ErrorCode::kBadValue, op + " needs an array");
      }
      QUARRY_RETURN_IF_ERROR(CheckOperand(e.value, path));
    } else if (op == "$not") {
      if (e.value.type() != bson::Type::kDocument) {
        return Status(ErrorCode::kBadValue, "$not needs a document of operators");
      }
      QUARRY_RETURN_IF_ERROR(CheckCondition(e.value.Document(), path));
    } else if (op == "$exists") {
      if (e.value.type() != bson::Type::kBool) {
        return Status(ErrorCode::kBadValue, "$exists needs true or false");
      }
    } else {
      return Unsupported("the operator " + op);
    }
  }
  return Status::OK();
}

// A nested index tests element fields in `filter` and parent fields in `parentFilter`.
Status CheckScope(const std::string& path, const vector::SearchIndexDefinition& definition,
                  FilterScope scope) {
  const bool element = definition.IsUnderNestedRoot(path);
  if (scope == FilterScope::kElements && !element) {
    return Status(ErrorCode::kBadValue, "Path '" + path + "' is not under the nestedRoot '" +
                                            definition.nested_root +
                                            "': filter on it in parentFilter");
  }
  if (scope == FilterScope::kParent && element) {
    return Status(ErrorCode::kBadValue, "Path '" + path + "' is under the nestedRoot '" +
                                            definition.nested_root +
                                            "': filter on it in filter, not parentFilter");
  }
  return Status::OK();
}

}  // namespace

Status CheckVectorSearchFilter(bson::DocumentView filter,
                               const vector::SearchIndexDefinition& definition, FilterScope scope) {
  for (const bson::Element& e : filter) {
    if (e.key.starts_with("$")) {
      if (e.key != "$and" && e.key != "$or" && e.key != "$nor") {
        return Unsupported("the operator " + std::string(e.key));
      }
      if (e.value.type() != bson::Type::kArray || e.value.Document().empty()) {
        return Status(ErrorCode::kBadValue, std::string(e.key) + " needs a non-empty array");
      }
      for (const bson::Element& clause : e.value.Document()) {
        if (clause.value.type() != bson::Type::kDocument) {
          return Status(ErrorCode::kBadValue, std::string(e.key) + " needs an array of documents");
        }
        QUARRY_RETURN_IF_ERROR(CheckVectorSearchFilter(clause.value.Document(), definition, scope));
      }
      continue;
    }
    const std::string path(e.key);
    if (!definition.IsFilterPath(path)) {
      return Status(ErrorCode::kBadValue,
                    "Path '" + path + "' needs to be indexed as filter to filter on it");
    }
    QUARRY_RETURN_IF_ERROR(CheckScope(path, definition, scope));
    const bool operators =
        e.value.type() == bson::Type::kDocument && e.value.Document().FirstKey().starts_with("$");
    QUARRY_RETURN_IF_ERROR(operators ? CheckCondition(e.value.Document(), path)
                                     : CheckOperand(e.value, path));
  }
  return Status::OK();
}

}  // namespace quarry::commands
