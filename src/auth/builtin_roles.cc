// The action sets of mongod's built-in roles (src/mongo/db/auth/builtin_roles.cpp), for the
// commands Quarry has.
#include "auth/builtin_roles.h"

#include <array>
#include <string>

namespace quarry::auth {
namespace {

using A = ActionType;

ActionSet ReadActions() {
  return {A::kChangeStream, A::kCollStats,       A::kDbHash,      A::kDbStats,          A::kFind,
          A::kKillCursors,  A::kListCollections, A::kListIndexes, A::kListSearchIndexes};
}

ActionSet ReadWriteActions() {
  ActionSet set = ReadActions();
  set.Add({A::kConvertToCapped, A::kCreateCollection, A::kCreateIndex, A::kCreateSearchIndexes,
           A::kDropCollection, A::kDropIndex, A::kDropSearchIndex, A::kInsert, A::kRemove,
           A::kRenameCollectionSameDB, A::kUpdate, A::kUpdateSearchIndex});
  return set;
}

ActionSet DbAdminActions() {
  return {A::kBypassDocumentValidation,
          A::kCollMod,
          A::kCollStats,
          A::kCompact,
          A::kConvertToCapped,
          A::kCreateCollection,
          A::kCreateIndex,
          A::kDbStats,
          A::kDropCollection,
          A::kDropDatabase,
          A::kDropIndex,
          A::kEnableProfiler,
          A::kListCollections,
          A::kListIndexes,
          A::kListSearchIndexes,
          A::kPlanCacheIndexFilter,
          A::kPlanCacheRead,
          A::kPlanCacheWrite,
          A::kReIndex,
          A::kRenameCollectionSameDB,
          A::kValidate};
}

ActionSet UserAdminActions() {
  return {A::kChangeCustomData, A::kChangePassword, A::kCreateRole, A::kCreateUser, A::kDropRole,
          A::kDropUser,         A::kGrantRole,      A::kRevokeRole, A::kViewRole,   A::kViewUser};
}

ActionSet ClusterMonitorActions() {
  return {A::kConnPoolStats, A::kGetCmdLineOpts,   A::kGetLog,           A::kGetParameter,
          A::kHostInfo,      A::kInprog,           A::kListDatabases,    A::kListSessions,
          A::kNetstat,       A::kReplSetGetConfig, A::kReplSetGetStatus, A::kServerStatus,
          A::kTop,           A::kUseUUID};
}

ActionSet HostManagerActions() {
  return {A::kDropConnections, A::kFsync,          A::kInvalidateUserCache,
          A::kKillAnyCursor,   A::kKillAnySession, A::kKillop,
          A::kLogRotate,       A::kSetParameter,   A::kShutdown,
          A::kConnPoolStats,   A::kUnlock};
}

ActionSet ClusterManagerActions() {
  return {A::kListSessions, A::kReplSetConfigure, A::kReplSetGetConfig, A::kReplSetGetStatus,
          A::kReplSetStateChange};
}

void AddClusterAdmin(std::vector<Privilege>* out) {
  ActionSet cluster = ClusterMonitorActions();
  cluster.Add(HostManagerActions());
  cluster.Add(ClusterManagerActions());
  out->push_back({ResourcePattern::Cluster(), cluster});
  out->push_back({ResourcePattern::AnyNormal(),
                  {A::kCollStats, A::kDbStats, A::kIndexStats, A::kDropDatabase, A::kKillCursors,
                   A::kValidate}});
}

void AddBackup(std::vector<Privilege>* out) {
  out->push_back({ResourcePattern::Cluster(),
                  {A::kGetParameter, A::kListDatabases, A::kServerStatus, A::kListSessions}});
  out->push_back({ResourcePattern::AnyResource(),
                  {A::kCollStats, A::kDbStats, A::kFind, A::kListCollections, A::kListIndexes,
                   A::kListSearchIndexes}});
}

void AddRestore(std::vector<Privilege>* out) {
  ActionSet normal = {A::kBypassDocumentValidation,
                      A::kChangeCustomData,
                      A::kChangePassword,
                      A::kCollMod,
                      A::kConvertToCapped,
                      A::kCreateCollection,
                      A::kCreateIndex,
                      A::kCreateRole,
                      A::kCreateUser,
                      A::kDropCollection,
                      A::kDropRole,
                      A::kDropUser,
                      A::kGrantRole,
                      A::kInsert,
                      A::kRevokeRole,
                      A::kViewRole,
                      A::kViewUser,
                      A::kListCollections,
                      A::kListIndexes};
  out->push_back({ResourcePattern::Cluster(), {A::kGetParameter, A::kListDatabases}});
  out->push_back({ResourcePattern::AnyNormal(), normal});
  for (const char* system : {"system.users", "system.roles", "system.version"}) {
    out->push_back({ResourcePattern::Namespace("admin", system),
                    {A::kCreateCollection, A::kCreateIndex, A::kInsert, A::kUpdate, A::kRemove,
                     A::kFind, A::kDropCollection}});
  }
}

constexpr std::array<std::string_view, 5> kDatabaseRoles = {"read", "readWrite", "dbAdmin",
                                                            "userAdmin", "dbOwner"};
constexpr std::array<std::string_view, 10> kAdminRoles = {"readAnyDatabase",
                                                          "readWriteAnyDatabase",
                                                          "userAdminAnyDatabase",
                                                          "dbAdminAnyDatabase",
                                                          "clusterMonitor",
                                                          "clusterManager",
                                                          "hostManager",
                                                          "clusterAdmin",
                                                          "backup",
                                                          "restore"};

}  // namespace

bool IsBuiltinRole(std::string_view role, std::string_view db) {
  for (std::string_view r : kDatabaseRoles) {
    if (r == role) return true;
  }
  if (db != "admin") return false;
  if (role == "root") return true;
  for (std::string_view r : kAdminRoles) {
    if (r == role) return true;
  }
  return false;
}

std::vector<std::string_view> BuiltinRoleNames(std::string_view db) {
  std::vector<std::string_view> names(kDatabaseRoles.begin(), kDatabaseRoles.end());
  if (db == "admin") {
    names.insert(names.end(), kAdminRoles.begin(), kAdminRoles.end());
    names.push_back("root");
  }
  return names;
}

std::optional<std::vector<Privilege>> BuiltinRolePrivileges(std::string_view role,
                                                            std::string_view db) {
  if (!IsBuiltinRole(role, db)) return std::nullopt;
  std::vector<Privilege> out;
  const ResourcePattern database = ResourcePattern::Database(std::string(db));
  const ActionSet list_databases = {A::kListDatabases};
  if (role == "read") {
    out.push_back({database, ReadActions()});
  } else if (role == "readWrite") {
    out.push_back({database, ReadWriteActions()});
  } else if (role == "dbAdmin") {
    out.push_back({database, DbAdminActions()});
    out.push_back({ResourcePattern::Namespace(std::string(db), "system.profile"),
                   {A::kCollStats, A::kDbStats, A::kFind, A::kListCollections, A::kListIndexes,
                    A::kDropCollection, A::kCreateCollection}});
  } else if (role == "userAdmin") {
    out.push_back({database, UserAdminActions()});
  } else if (role == "dbOwner") {
    ActionSet all = ReadWriteActions();
    all.Add(DbAdminActions());
    all.Add(UserAdminActions());
    out.push_back({database, all});
  } else if (role == "readAnyDatabase") {
    out.push_back({ResourcePattern::AnyNormal(), ReadActions()});
    out.push_back({ResourcePattern::Cluster(), list_databases});
  } else if (role == "readWriteAnyDatabase") {
    out.push_back({ResourcePattern::AnyNormal(), ReadWriteActions()});
    out.push_back({ResourcePattern::Cluster(), list_databases});
  } else if (role == "userAdminAnyDatabase") {
    out.push_back({ResourcePattern::AnyNormal(), UserAdminActions()});
    out.push_back({ResourcePattern::Cluster(),
                   {A::kListDatabases, A::kInvalidateUserCache, A::kViewUser, A::kViewRole}});
    for (const char* system : {"system.users", "system.roles"}) {
      out.push_back({ResourcePattern::Namespace("admin", system),
                     {A::kCollStats, A::kDbHash, A::kDbStats, A::kFind, A::kKillCursors,
                      A::kListCollections, A::kListIndexes, A::kPlanCacheRead}});
    }
  } else if (role == "dbAdminAnyDatabase") {
    out.push_back({ResourcePattern::AnyNormal(), DbAdminActions()});
    out.push_back({ResourcePattern::Cluster(), list_databases});
  } else if (role == "clusterMonitor") {
    out.push_back({ResourcePattern::Cluster(), ClusterMonitorActions()});
    out.push_back({ResourcePattern::AnyNormal(), {A::kCollStats, A::kDbStats, A::kIndexStats}});
  } else if (role == "clusterManager") {
    out.push_back({ResourcePattern::Cluster(), ClusterManagerActions()});
  } else if (role == "hostManager") {
    out.push_back({ResourcePattern::Cluster(), HostManagerActions()});
    out.push_back({ResourcePattern::AnyResource(), {A::kKillCursors}});
  } else if (role == "clusterAdmin") {
    AddClusterAdmin(&out);
  } else if (role == "backup") {
    AddBackup(&out);
  } else if (role == "restore") {
    AddRestore(&out);
  } else if (role == "root") {
    for (std::string_view part : {"readWriteAnyDatabase", "dbAdminAnyDatabase",
                                  "userAdminAnyDatabase", "clusterAdmin", "restore", "backup"}) {
      std::vector<Privilege> more = *BuiltinRolePrivileges(part, "admin");
      out.insert(out.end(), more.begin(), more.end());
    }
    out.push_back({ResourcePattern::AnyResource(), {A::kValidate}});
  }
  return out;
}

}  // namespace quarry::auth
