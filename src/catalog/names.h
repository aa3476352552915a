// Which database and collection names are valid (mongod's NamespaceString rules on Linux).
#pragma once

#include <cstddef>
#include <string_view>

#include "base/status.h"

namespace quarry::catalog {

inline constexpr std::size_t kMaxDatabaseNameBytes = 63;
inline constexpr std::size_t kMaxNamespaceBytes = 255;

// Non-empty, at most 63 bytes, none of / \ . space " $ and NUL. Fails with kInvalidNamespace.
Status ValidateDatabaseName(std::string_view db);

// Non-empty, no NUL, no $, not starting with '.', and not starting with "system." unless
// `allow_system`; "db.coll" at most 255 bytes. Also validates `db`. Fails with
// kInvalidNamespace.
Status ValidateNamespace(std::string_view db, std::string_view collection,
                         bool allow_system = false);

}  // namespace quarry::catalog
