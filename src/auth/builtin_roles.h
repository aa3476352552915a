// mongod's built-in roles and the privileges each grants (docs/DESIGN.md, Authentication),
// limited to the actions of the commands Quarry has.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "auth/privilege.h"

namespace quarry::auth {

// Whether `role` on database `db` is a built-in role. The *AnyDatabase roles, the cluster
// roles, backup, restore and root exist only on admin, as in mongod.
bool IsBuiltinRole(std::string_view role, std::string_view db);

// The privileges of built-in role `role` on `db`; nullopt when it is not one.
std::optional<std::vector<Privilege>> BuiltinRolePrivileges(std::string_view role,
                                                            std::string_view db);

// Every built-in role of `db`, by name (rolesInfo's showBuiltinRoles).
std::vector<std::string_view> BuiltinRoleNames(std::string_view db);

}  // namespace quarry::auth
