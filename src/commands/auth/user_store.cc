// Reads and writes of admin.system.users and admin.system.roles through exec/, and role
// resolution.
#include "commands/auth/user_store.h"

#include <algorithm>
#include <set>

#include "auth/builtin_roles.h"
#include "auth/user_digest.h"
#include "bson/builder.h"
#include "commands/execution.h"
#include "exec/write_matches.h"
#include "query/match/matcher.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

StatusWith<exec::Collection> EnsureAuthCollection(CommandContext& ctx,
                                                  std::string_view collection) {
  catalog::DdlOptions ddl = DdlOptionsFor(ctx);
  ddl.allow_system_names = true;
  return exec::EnsureCollection(ctx.catalog(), kAuthDatabase, collection, ddl);
}

bson::Document IdFilter(std::string_view id) {
  bson::DocumentBuilder b;
  b.AppendString("_id", id);
  return std::move(b).Finish();
}

StatusWith<std::vector<RoleName>> StoredRoles(bson::DocumentView doc) {
  return ParseRoleNames(doc.Get("roles"), "");
}

}  // namespace

std::string AuthDocumentId(std::string_view name, std::string_view db) {
  return std::string(db) + "." + std::string(name);
}

StatusWith<std::optional<bson::Document>> ReadAuthDocument(CommandContext& ctx,
                                                           std::string_view collection,
                                                           std::string_view name,
                                                           std::string_view db) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> coll,
                          LookupCollection(ctx, kAuthDatabase, collection));
  if (!coll.has_value()) return std::optional<bson::Document>();
  const bson::Document id = IdFilter(AuthDocumentId(name, db));
  return exec::ReadById(ExecContextOf(ctx), *coll, id.Get("_id"));
}

StatusWith<std::vector<bson::Document>> FindAuthDocuments(CommandContext& ctx,
                                                          std::string_view collection,
                                                          bson::DocumentView filter) {
  std::vector<bson::Document> found;
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> coll,
                          LookupCollection(ctx, kAuthDatabase, collection));
  if (!coll.has_value()) return found;
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter));
  QUARRY_RETURN_IF_ERROR(
      exec::ForEachMatch(ExecContextOf(ctx), *coll, matcher,
                         [&found](bson::DocumentView doc, const query::MatchDetails&) {
                           found.push_back(bson::Document::Copy(doc));
                           return true;
                         }));
  std::sort(found.begin(), found.end(), [](const bson::Document& a, const bson::Document& b) {
    return a.Get("_id").String() < b.Get("_id").String();
  });
  return found;
}

Status InsertAuthDocument(CommandContext& ctx, std::string_view collection,
                          bson::DocumentView document) {
  QUARRY_ASSIGN_OR_RETURN(exec::Collection coll, EnsureAuthCollection(ctx, collection));
  storage::WriteUnit unit;
  unit.Insert(coll.ref(), document);
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                          CommitForRequest(ctx, std::move(unit), CommitOptionsFor(ctx, true)));
  ctx.service().auth.Changed();
  if (!result.errors.empty()) return result.errors.front().status;
  return result.sync_status;
}

StatusWith<bool> ModifyAuthDocument(
    CommandContext& ctx, std::string_view collection, std::string_view id,
    const std::function<StatusWith<bson::Document>(bson::DocumentView)>& modify) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> coll,
                          LookupCollection(ctx, kAuthDatabase, collection));
  if (!coll.has_value()) return false;
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(IdFilter(id)));
  bson::Document replacement;
  const exec::Collection& target = *coll;
  QUARRY_ASSIGN_OR_RETURN(
      std::optional<exec::FirstMatch> first,
      exec::ChangeFirstMatch(
          ExecContextOf(ctx), target, matcher, /*sort=*/nullptr, CommitterOf(ctx),
          [&](bson::DocumentView doc, const query::MatchDetails&,
              storage::WriteUnit* unit) -> StatusWith<bool> {
            QUARRY_ASSIGN_OR_RETURN(replacement, modify(doc));
            unit->Update(target.ref(), doc, replacement, storage::UpdateKind::kReplace);
            return true;
          }));
  ctx.service().auth.Changed();
  return first.has_value();
}

StatusWith<std::int64_t> DeleteAuthDocuments(CommandContext& ctx, std::string_view collection,
                                             bson::DocumentView filter) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> coll,
                          LookupCollection(ctx, kAuthDatabase, collection));
  if (!coll.has_value()) return std::int64_t{0};
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter));
  const exec::Collection& target = *coll;
  QUARRY_ASSIGN_OR_RETURN(
      exec::MatchCounts counts,
      exec::ChangeEveryMatch(ExecContextOf(ctx), target, matcher, CommitterOf(ctx),
                             [&target](bson::DocumentView doc, const query::MatchDetails&,
                                       storage::WriteUnit* unit) -> StatusWith<bool> {
                               unit->Delete(target.ref(), doc);
                               return true;
                             }));
  ctx.service().auth.Changed();
  return counts.changed;
}

StatusWith<bool> AnyUsersOrRoles(CommandContext& ctx) {
  // Read each time rather than cached: only unauthenticated localhost clients ask, and a
  // restore or a drop of the collections may change the answer without a user command.
  bool any = false;
  for (std::string_view collection : {kUsersCollection, kRolesCollection}) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> coll,
                            LookupCollection(ctx, kAuthDatabase, collection));
    if (!coll.has_value()) continue;
    QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(bson::Document()));
    QUARRY_RETURN_IF_ERROR(exec::ForEachMatch(
        ExecContextOf(ctx), *coll, matcher, [&any](bson::DocumentView, const query::MatchDetails&) {
          any = true;
          return false;
        }));
    if (any) break;
  }
  return any;
}

StatusWith<std::vector<RoleName>> ParseRoleNames(bson::ValueView roles,
                                                 std::string_view default_db) {
  std::vector<RoleName> names;
  if (!roles.exists()) return names;
  if (roles.type() != bson::Type::kArray) {
    return Status(ErrorCode::kBadValue, "\"roles\" field must be an array");
  }
  for (const bson::Element& e : roles.Document()) {
    if (e.value.type() == bson::Type::kString && !default_db.empty()) {
      names.push_back({std::string(e.value.String()), std::string(default_db)});
      continue;
    }
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kBadValue,
                    "role names must be strings or {role: <name>, db: <database>}");
    }
    bson::ValueView role = e.value.Document().Get("role");
    bson::ValueView db = e.value.Document().Get("db");
    if (role.type() != bson::Type::kString || db.type() != bson::Type::kString) {
      return Status(ErrorCode::kBadValue,
                    "role names must be strings or {role: <name>, db: <database>}");
    }
    names.push_back({std::string(role.String()), std::string(db.String())});
  }
  return names;
}

bson::Document RoleNamesToArray(const std::vector<RoleName>& roles) {
  bson::ArrayBuilder array;
  for (const RoleName& role : roles) {
    bson::DocumentBuilder b;
    b.AppendString("role", role.role);
    b.AppendString("db", role.db);
    array.AppendDocument(std::move(b).Finish());
  }
  return std::move(array).Finish();
}

StatusWith<ResolvedRoles> ResolveRoles(CommandContext& ctx, const std::vector<RoleName>& roles,
                                       bool require_existing) {
  ResolvedRoles resolved;
  std::vector<RoleName> pending = roles;
  while (!pending.empty()) {
    RoleName role = std::move(pending.back());
    pending.pop_back();
    if (std::find(resolved.all.begin(), resolved.all.end(), role) != resolved.all.end()) continue;
    if (std::optional<std::vector<auth::Privilege>> builtin =
            auth::BuiltinRolePrivileges(role.role, role.db)) {
      resolved.privileges.Add(*builtin);
      resolved.all.push_back(std::move(role));
      continue;
    }
    QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> stored,
                            ReadAuthDocument(ctx, kRolesCollection, role.role, role.db));
    if (!stored.has_value()) {
      if (require_existing) {
        return Status(ErrorCode::kRoleNotFound,
                      "Could not find role: " + role.role + "@" + role.db);
      }
      continue;
    }
    bson::ValueView privileges = stored->Get("privileges");
    if (privileges.type() == bson::Type::kArray) {
      for (const bson::Element& e : privileges.Document()) {
        if (e.value.type() != bson::Type::kDocument) continue;
        StatusWith<auth::Privilege> privilege = auth::Privilege::Parse(e.value.Document());
        if (privilege.ok()) resolved.privileges.Add(privilege.value());
      }
    }
    QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> inherited, StoredRoles(*stored));
    pending.insert(pending.end(), inherited.begin(), inherited.end());
    resolved.all.push_back(std::move(role));
  }
  return resolved;
}

Status SignIn(CommandContext& ctx, bson::DocumentView user_document) {
  AuthenticatedUser user;
  user.user = std::string(user_document.Get("user").String());
  user.db = std::string(user_document.Get("db").String());
  const std::uint64_t generation = ctx.service().auth.generation.load();
  QUARRY_ASSIGN_OR_RETURN(user.roles, StoredRoles(user_document));
  QUARRY_ASSIGN_OR_RETURN(ResolvedRoles resolved,
                          ResolveRoles(ctx, user.roles, /*require_existing=*/false));
  user.inherited = std::move(resolved.all);
  ConnectionAuth& auth = ctx.connection().auth;
  ctx.service().operations.SetUser(ctx.connection().id, user.name());
  auth.session_uid = auth::UserDigest(user.user, user.db);
  auth.user = std::move(user);
  auth.privileges = std::move(resolved.privileges);
  auth.generation = generation;
  return Status::OK();
}

void SignOut(CommandContext& ctx) {
  ConnectionAuth& auth = ctx.connection().auth;
  auth.user.reset();
  auth.privileges = {};
  auth.session_uid.clear();
  ctx.service().operations.SetUser(ctx.connection().id, std::nullopt);
}

Status RefreshAuthentication(CommandContext& ctx) {
  ConnectionAuth& auth = ctx.connection().auth;
  if (!auth.user.has_value() || auth.generation == ctx.service().auth.generation.load()) {
    return Status::OK();
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> stored,
                          ReadAuthDocument(ctx, kUsersCollection, auth.user->user, auth.user->db));
  if (!stored.has_value()) {
    SignOut(ctx);
    return Status::OK();
  }
  return SignIn(ctx, *stored);
}

}  // namespace quarry::commands
