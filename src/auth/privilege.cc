// Action names, resource patterns and how they cover a command's target.
#include "auth/privilege.h"

#include <array>

#include "bson/builder.h"

namespace quarry::auth {
namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(ActionType::kCount)> kNames = {
#define QUARRY_ACTION(id, name) name,
#include "auth/action_types.def"
#undef QUARRY_ACTION
};

bool IsSystemCollection(std::string_view collection) { return collection.starts_with("system."); }

}  // namespace

std::string_view ActionName(ActionType action) { return kNames[static_cast<std::size_t>(action)]; }

std::optional<ActionType> ActionFromName(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<ActionType>(i);
  }
  return std::nullopt;
}

std::vector<std::string_view> ActionSet::Names() const {
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (bits_.test(i)) names.push_back(kNames[i]);
  }
  return names;
}

StatusWith<ResourcePattern> ResourcePattern::Parse(bson::DocumentView resource) {
  bson::ValueView cluster = resource.Get("cluster");
  bson::ValueView any = resource.Get("anyResource");
  if (cluster.exists() || any.exists()) {
    if (resource.CountElements() != 1 || !(cluster.exists() ? cluster : any).Truthy()) {
      return Status(ErrorCode::kBadValue,
                    "resource {cluster: true} or {anyResource: true} takes no other field");
    }
    return cluster.exists() ? Cluster() : AnyResource();
  }
  bson::ValueView db = resource.Get("db");
  bson::ValueView coll = resource.Get("collection");
  if (db.type() != bson::Type::kString || coll.type() != bson::Type::kString ||
      resource.CountElements() != 2) {
    return Status(ErrorCode::kBadValue,
                  "resource must be {db: <string>, collection: <string>}, {cluster: true} or "
                  "{anyResource: true}, not " +
                      resource.ToJson());
  }
  std::string d(db.String());
  std::string c(coll.String());
  if (d.empty() && c.empty()) return AnyNormal();
  if (c.empty()) return Database(std::move(d));
  if (d.empty()) return ResourcePattern{Kind::kCollectionName, "", std::move(c)};
  return Namespace(std::move(d), std::move(c));
}

bson::Document ResourcePattern::ToDocument() const {
  bson::DocumentBuilder b;
  switch (kind) {
    case Kind::kCluster:
      b.AppendBool("cluster", true);
      break;
    case Kind::kAnyResource:
      b.AppendBool("anyResource", true);
      break;
    default:
      b.AppendString("db", db);
      b.AppendString("collection", collection);
      break;
  }
  return std::move(b).Finish();
}

bool Covers(const ResourcePattern& pattern, const Target& target) {
  using K = ResourcePattern::Kind;
  if (pattern.kind == K::kAnyResource) return true;
  if (target.kind == Target::Kind::kCluster) return pattern.kind == K::kCluster;
  if (target.kind == Target::Kind::kEveryDatabase) return pattern.kind == K::kAnyNormalResource;
  if (pattern.kind == K::kCluster) return false;
  if (target.kind == Target::Kind::kDatabase) {
    return pattern.kind == K::kAnyNormalResource ||
           (pattern.kind == K::kDatabase && pattern.db == target.db);
  }
  const bool normal = !IsSystemCollection(target.collection);
  switch (pattern.kind) {
    case K::kAnyNormalResource:
      return normal;
    case K::kDatabase:
      return normal && pattern.db == target.db;
    case K::kCollectionName:
      return normal && pattern.collection == target.collection;
    case K::kExactNamespace:
      return pattern.db == target.db && pattern.collection == target.collection;
    default:
      return false;
  }
}

StatusWith<Privilege> Privilege::Parse(bson::DocumentView privilege) {
  bson::ValueView resource = privilege.Get("resource");
  bson::ValueView actions = privilege.Get("actions");
  if (resource.type() != bson::Type::kDocument || actions.type() != bson::Type::kArray ||
      privilege.CountElements() != 2) {
    return Status(ErrorCode::kBadValue,
                  "a privilege is {resource: {...}, actions: [...]}, not " + privilege.ToJson());
  }
  Privilege parsed;
  QUARRY_ASSIGN_OR_RETURN(parsed.resource, ResourcePattern::Parse(resource.Document()));
  for (const bson::Element& e : actions.Document()) {
    if (e.value.type() != bson::Type::kString) {
      return Status(ErrorCode::kBadValue, "privilege actions must be strings");
    }
    std::optional<ActionType> action = ActionFromName(e.value.String());
    if (!action.has_value()) {
      return Status(ErrorCode::kBadValue,
                    "Unrecognized action privilege string: " + std::string(e.value.String()));
    }
    parsed.actions.Add(*action);
  }
  return parsed;
}

bson::Document Privilege::ToDocument() const {
  bson::DocumentBuilder b;
  b.AppendDocument("resource", resource.ToDocument());
  bson::ArrayBuilder names;
  for (std::string_view name : actions.Names()) names.AppendString(name);
  b.AppendArray("actions", std::move(names).Finish());
  return std::move(b).Finish();
}

void PrivilegeSet::Add(const Privilege& privilege) {
  for (Privilege& existing : privileges_) {
    if (existing.resource == privilege.resource) {
      existing.actions.Add(privilege.actions);
      return;
    }
  }
  privileges_.push_back(privilege);
}

void PrivilegeSet::Add(const std::vector<Privilege>& privileges) {
  for (const Privilege& p : privileges) Add(p);
}

bool PrivilegeSet::AnyOnDatabase(std::string_view db) const {
  using K = ResourcePattern::Kind;
  for (const Privilege& p : privileges_) {
    if (p.actions.empty()) continue;
    switch (p.resource.kind) {
      case K::kAnyResource:
      case K::kAnyNormalResource:
        return true;
      case K::kDatabase:
      case K::kExactNamespace:
        if (p.resource.db == db) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

bool PrivilegeSet::Allows(const Target& target, const ActionSet& actions) const {
  ActionSet granted;
  for (const Privilege& p : privileges_) {
    if (Covers(p.resource, target)) granted.Add(p.actions);
  }
  return granted.ContainsAll(actions);
}

}  // namespace quarry::auth
