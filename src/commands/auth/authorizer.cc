// The authorization check before every command, and the argument-dependent checks.
#include "commands/auth/authorizer.h"

#include <limits>

#include "commands/auth/user_store.h"

namespace quarry::commands {
namespace {

using A = auth::ActionType;

bool IsLoopback(std::string_view remote) {
  return remote.starts_with("127.") || remote.starts_with("[::1]") || remote.starts_with("::1");
}

// The namespace a command's first value names: db.<string>, or the database for `1`.
auth::Target TargetOf(const Request& request) {
  bson::ValueView first = request.body.Get(request.name);
  if (first.type() == bson::Type::kString) {
    return auth::Target::Namespace(request.db, std::string(first.String()));
  }
  return auth::Target::Database(request.db);
}

// A namespace given as "coll" (in `db`) or {db, coll}.
std::optional<auth::Target> NamespaceValue(bson::ValueView value, std::string_view db) {
  if (value.type() == bson::Type::kString) {
    return auth::Target::Namespace(std::string(db), std::string(value.String()));
  }
  if (value.type() == bson::Type::kDocument) {
    bson::ValueView d = value.Document().Get("db");
    bson::ValueView c = value.Document().Get("coll");
    if (c.type() != bson::Type::kString) return std::nullopt;
    return auth::Target::Namespace(
        d.type() == bson::Type::kString ? std::string(d.String()) : std::string(db),
        std::string(c.String()));
  }
  return std::nullopt;
}

bool AllowsPipeline(const Authorizer& authorizer, bson::ValueView pipeline,
                    const auth::Target& base, bool is_top);

// mongod's listSessionsRequiredPrivileges: a list of sessions needs listSessions unless it is
// the caller's own (no allUsers, and `users` absent, empty or naming only the caller).
bool ListsOnlyOwnSessions(const Authorizer& authorizer, bson::ValueView spec) {
  if (spec.type() != bson::Type::kDocument) return true;  // the stage fails on its argument
  if (spec.Document().Get("allUsers").Truthy()) return false;
  bson::ValueView users = spec.Document().Get("users");
  if (users.type() != bson::Type::kArray) return true;
  std::optional<UserName> me = authorizer.connection().Name();
  for (const bson::Element& e : users.Document()) {
    if (e.value.type() != bson::Type::kDocument) return true;  // fails on its argument
    bson::ValueView user = e.value.Document().Get("user");
    bson::ValueView db = e.value.Document().Get("db");
    if (!me.has_value() || user.type() != bson::Type::kString || db.type() != bson::Type::kString ||
        user.String() != me->user || db.String() != me->db) {
      return false;
    }
  }
  return true;
}

bool AllowsStage(const Authorizer& authorizer, std::string_view stage, bson::ValueView spec,
                 const auth::Target& base) {
  const std::string& db = base.db;
  if (stage == "$out") {
    std::optional<auth::Target> target = NamespaceValue(spec, db);
    return target.has_value() && authorizer.Allows(*target, {A::kInsert, A::kRemove});
  }
  if (stage == "$merge") {
    bson::ValueView into =
        spec.type() == bson::Type::kDocument ? spec.Document().Get("into") : spec;
    std::optional<auth::Target> target = NamespaceValue(into, db);
    return target.has_value() && authorizer.Allows(*target, {A::kInsert, A::kUpdate});
  }
  if (stage == "$lookup" || stage == "$graphLookup" || stage == "$unionWith") {
    bson::ValueView from;
    bson::ValueView pipeline;
    if (spec.type() == bson::Type::kDocument) {
      from = spec.Document().Get(stage == "$unionWith" ? "coll" : "from");
      pipeline = spec.Document().Get("pipeline");
    } else {
      from = spec;
    }
    std::optional<auth::Target> target = NamespaceValue(from, db);
    if (!target.has_value()) {
      return !pipeline.exists() || AllowsPipeline(authorizer, pipeline, base, false);
    }
    if (!authorizer.Allows(*target, {A::kFind})) return false;
    return !pipeline.exists() || AllowsPipeline(authorizer, pipeline, *target, false);
  }
  if (stage == "$facet" && spec.type() == bson::Type::kDocument) {
    for (const bson::Element& e : spec.Document()) {
      if (!AllowsPipeline(authorizer, e.value, base, false)) return false;
    }
    return true;
  }
  if (stage == "$currentOp") {
    // Without allUsers, the caller's own operations.
    const bool all_users =
        spec.type() == bson::Type::kDocument && spec.Document().Get("allUsers").Truthy();
    return !all_users || authorizer.Allows(auth::Target::Cluster(), {A::kInprog});
  }
  if (stage == "$listSessions" || stage == "$listLocalSessions") {
    return ListsOnlyOwnSessions(authorizer, spec) ||
           authorizer.Allows(auth::Target::Cluster(), {A::kListSessions});
  }
  if (stage == "$collStats") return authorizer.Allows(base, {A::kCollStats});
  if (stage == "$indexStats") return authorizer.Allows(base, {A::kIndexStats});
  if (stage == "$planCacheStats") return authorizer.Allows(base, {A::kPlanCacheRead});
  if (stage == "$changeStream") {
    const bool cluster = spec.type() == bson::Type::kDocument &&
                         spec.Document().Get("allChangesForCluster").Truthy();
    return authorizer.Allows(cluster ? auth::Target::EveryDatabase() : base,
                             {A::kChangeStream, A::kFind});
  }
  return true;
}

// Stages that read no collection: the pipeline needs no find on its base for them.
bool ReadsNoCollection(std::string_view first_stage) {
  return first_stage == "$currentOp" || first_stage == "$listSessions" ||
         first_stage == "$listLocalSessions" || first_stage == "$documents" ||
         first_stage == "$collStats" || first_stage == "$indexStats" ||
         first_stage == "$planCacheStats" || first_stage == "$changeStream";
}

bool AllowsPipeline(const Authorizer& authorizer, bson::ValueView pipeline,
                    const auth::Target& base, bool is_top) {
  if (pipeline.type() != bson::Type::kArray) return authorizer.Allows(base, {A::kFind});
  bool first = true;
  for (const bson::Element& e : pipeline.Document()) {
    if (e.value.type() != bson::Type::kDocument || e.value.Document().empty()) continue;
    std::string_view stage = e.value.Document().FirstKey();
    if (first && !ReadsNoCollection(stage) && !authorizer.Allows(base, {A::kFind})) return false;
    first = false;
    if (!AllowsStage(authorizer, stage, e.value.Document().Get(stage), base)) return false;
  }
  if (first && is_top) return authorizer.Allows(base, {A::kFind});  // an empty pipeline reads
  return true;
}

}  // namespace

bool Authorizer::AllowsOn(std::string_view db, std::string_view coll,
                          const auth::ActionSet& actions) const {
  return Allows(auth::Target::Namespace(std::string(db), std::string(coll)), actions);
}

bool Authorizer::OwnsOperation(std::int32_t opid) const {
  std::optional<UserName> user = auth_.Name();
  return operations_ != nullptr && user.has_value() && operations_->StartedBy(opid, *user);
}

bool Authorizer::AllowsCommand(const Command& command, const Request& request) const {
  using Scope = Authorization::Scope;
  const Authorization& declared = command.auth;
  switch (declared.scope) {
    case Scope::kOpen:
      return true;
    case Scope::kAnyUser:
      return authenticated();
    case Scope::kNamespace:
      return Allows(TargetOf(request), declared.actions);
    case Scope::kDatabase:
      return Allows(auth::Target::Database(request.db), declared.actions);
    case Scope::kCluster:
      return Allows(auth::Target::Cluster(), declared.actions);
    case Scope::kCustom:
      return declared.check != nullptr && declared.check(*this, request);
    case Scope::kUndeclared:
      return false;
  }
  return false;
}

Status CheckAuthorization(CommandContext& ctx, const Command& command, const Request& request) {
  if (!ctx.service().config.auth_enabled) return Status::OK();
  if (command.auth.scope == Authorization::Scope::kOpen) return Status::OK();
  QUARRY_RETURN_IF_ERROR(RefreshAuthentication(ctx));
  const ConnectionAuth& auth = ctx.connection().auth;
  if (!auth.authenticated()) {
    if (command.has(kLocalhostException) && request.db == kAuthDatabase &&
        IsLoopback(ctx.connection().remote)) {
      QUARRY_ASSIGN_OR_RETURN(bool any, AnyUsersOrRoles(ctx));
      if (!any) return Status::OK();
    }
    return Status(ErrorCode::kUnauthorized,
                  "command " + std::string(request.name) + " requires authentication");
  }
  if (Authorizer(auth, *ctx.service().registry, &ctx.service().operations)
          .AllowsCommand(command, request)) {
    return Status::OK();
  }
  constexpr std::size_t kMaxShown = 1024;
  std::string shown = request.body.ToJson();
  if (shown.size() > kMaxShown) shown = shown.substr(0, kMaxShown) + " ...";
  return Status(ErrorCode::kUnauthorized,
                "not authorized on " + request.db + " to execute command " + shown);
}

bool AllowsOnRoles(const Authorizer& authorizer, bson::ValueView roles, std::string_view db,
                   auth::ActionType action) {
  StatusWith<std::vector<RoleName>> names = ParseRoleNames(roles, db);
  if (!names.ok()) return authorizer.authenticated();  // the command fails on its argument
  for (const RoleName& role : names.value()) {
    if (!authorizer.Allows(auth::Target::Database(role.db), {action})) return false;
  }
  return true;
}

bool MayKillAnyCursor(CommandContext& ctx) {
  return !ctx.service().config.auth_enabled ||
         ctx.connection().auth.privileges.Allows(auth::Target::Cluster(), {A::kKillAnyCursor});
}

bool AuthorizeAggregate(const Authorizer& authorizer, const Request& request) {
  return AllowsPipeline(authorizer, request.body.Get("pipeline"), TargetOf(request), true);
}

bool AuthorizeExplain(const Authorizer& authorizer, const Request& request) {
  bson::ValueView inner = request.body.Get(request.name);
  if (inner.type() != bson::Type::kDocument || inner.Document().empty()) {
    return authorizer.authenticated();  // the command fails on its argument
  }
  Request explained{.name = inner.Document().FirstKey(),
                    .db = request.db,
                    .body = inner.Document(),
                    .sequences = {}};
  const Command* command = authorizer.registry().Find(explained.name);
  return command == nullptr ? authorizer.authenticated()
                            : authorizer.AllowsCommand(*command, explained);
}

bool AuthorizeUpdate(const Authorizer& authorizer, const Request& request) {
  auth::ActionSet needed = {A::kUpdate};
  StatusWith<std::vector<bson::DocumentView>> updates = request.Documents("updates");
  if (updates.ok()) {
    for (bson::DocumentView statement : updates.value()) {
      if (statement.Get("upsert").Truthy()) needed.Add(A::kInsert);
    }
  }
  return authorizer.Allows(TargetOf(request), needed);
}

bool AuthorizeFindAndModify(const Authorizer& authorizer, const Request& request) {
  auth::ActionSet needed = {A::kFind};
  needed.Add(request.body.Get("remove").Truthy() ? A::kRemove : A::kUpdate);
  if (request.body.Get("upsert").Truthy()) needed.Add(A::kInsert);
  return authorizer.Allows(TargetOf(request), needed);
}

bool AuthorizeRenameCollection(const Authorizer& authorizer, const Request& request) {
  bson::ValueView from = request.body.Get(request.name);
  bson::ValueView to = request.body.Get("to");
  if (from.type() != bson::Type::kString || to.type() != bson::Type::kString) {
    return authorizer.authenticated();  // the command fails on its arguments
  }
  auto split = [](std::string_view ns) {
    const std::size_t dot = ns.find('.');
    if (dot == std::string_view::npos) return auth::Target::Namespace(std::string(ns), "");
    return auth::Target::Namespace(std::string(ns.substr(0, dot)), std::string(ns.substr(dot + 1)));
  };
  const auth::Target source = split(from.String());
  const auth::Target target = split(to.String());
  if (request.body.Get("dropTarget").Truthy() && !authorizer.Allows(target, {A::kDropCollection})) {
    return false;
  }
  if (source.db == target.db) {
    return authorizer.Allows(auth::Target::Database(source.db), {A::kRenameCollectionSameDB});
  }
  return authorizer.Allows(source, {A::kFind, A::kDropCollection}) &&
         authorizer.Allows(target, {A::kInsert, A::kCreateIndex});
}

bool AuthorizeCloneCollectionAsCapped(const Authorizer& authorizer, const Request& request) {
  bson::ValueView to = request.body.Get("toCollection");
  if (to.type() != bson::Type::kString) {
    return authorizer.authenticated();  // the command fails on its arguments
  }
  return authorizer.Allows(TargetOf(request), {A::kFind}) &&
         authorizer.Allows(auth::Target::Namespace(request.db, std::string(to.String())),
                           {A::kInsert, A::kCreateIndex, A::kConvertToCapped});
}

bool AuthorizeListDatabases(const Authorizer& authorizer, const Request& request) {
  if (authorizer.Allows(auth::Target::Cluster(), {A::kListDatabases})) return true;
  bson::ValueView authorized = request.body.Get("authorizedDatabases");
  return authorizer.authenticated() && (!authorized.exists() || authorized.Truthy());
}

std::optional<std::function<bool(std::string_view db)>> AuthorizedDatabases(
    CommandContext& ctx, bson::ValueView authorized_databases) {
  if (!ctx.service().config.auth_enabled) return std::nullopt;
  const auth::PrivilegeSet& privileges = ctx.connection().auth.privileges;
  const bool may_list_all = privileges.Allows(auth::Target::Cluster(), {A::kListDatabases});
  if (may_list_all && !authorized_databases.Truthy()) return std::nullopt;
  return [&privileges](std::string_view db) { return privileges.AnyOnDatabase(db); };
}

bool AuthorizeCurrentOp(const Authorizer& authorizer, const Request& request) {
  return authorizer.Allows(auth::Target::Cluster(), {A::kInprog}) ||
         (authorizer.authenticated() && request.body.Get("$ownOps").Truthy());
}

bool AuthorizeKillOp(const Authorizer& authorizer, const Request& request) {
  if (authorizer.Allows(auth::Target::Cluster(), {A::kKillop})) return true;
  bson::ValueView op = request.body.Get("op");
  if (!authorizer.authenticated() || !op.IsNumber()) return false;
  const double id = op.AsDouble();
  if (!(id >= std::numeric_limits<std::int32_t>::min() &&
        id <= std::numeric_limits<std::int32_t>::max())) {
    return false;
  }
  return authorizer.OwnsOperation(static_cast<std::int32_t>(op.AsInt64()));
}

}  // namespace quarry::commands
