// Name rules, after mongod's NamespaceString::validDBName / validCollectionName.
#include "catalog/names.h"

#include <string>

namespace quarry::catalog {

Status ValidateDatabaseName(std::string_view db) {
  if (db.empty()) return Status(ErrorCode::kInvalidNamespace, "database names cannot be empty");
  if (db.size() > kMaxDatabaseNameBytes) {
    return Status(ErrorCode::kInvalidNamespace,
                  "db name must be at most " + std::to_string(kMaxDatabaseNameBytes) +
                      " characters, found: " + std::to_string(db.size()));
  }
  if (db.find_first_of(std::string_view("/\\. \"$\0", 7)) != std::string_view::npos) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid database name: '" + std::string(db.substr(0, db.find('\0'))) + "'");
  }
  return Status::OK();
}

Status ValidateNamespace(std::string_view db, std::string_view collection, bool allow_system) {
  QUARRY_RETURN_IF_ERROR(ValidateDatabaseName(db));
  std::string ns = std::string(db) + "." + std::string(collection);
  if (collection.empty() || collection.front() == '.' ||
      collection.find('\0') != std::string_view::npos ||
      collection.find('$') != std::string_view::npos) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid collection name: '" + ns.substr(0, ns.find('\0')) + "'");
  }
  if (!allow_system && collection.starts_with("system.")) {
    return Status(ErrorCode::kInvalidNamespace, "Invalid system namespace: " + ns);
  }
  if (ns.size() > kMaxNamespaceBytes) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Fully qualified namespace is too long. Namespace: " + ns +
                      " Max: " + std::to_string(kMaxNamespaceBytes));
  }
  return Status::OK();
}

}  // namespace quarry::catalog
