// mongod's authorization model: actions, the resources they apply to, and the privileges (a
// resource pattern with its actions) that users get through their roles.
#pragma once

#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::auth {

enum class ActionType : std::uint8_t {
#define QUARRY_ACTION(id, name) id,
#include "auth/action_types.def"
#undef QUARRY_ACTION
  kCount
};

std::string_view ActionName(ActionType action);
std::optional<ActionType> ActionFromName(std::string_view name);

class ActionSet {
 public:
  ActionSet() = default;
  ActionSet(std::initializer_list<ActionType> actions) {
    for (ActionType a : actions) Add(a);
  }
  void Add(ActionType a) { bits_.set(static_cast<std::size_t>(a)); }
  void Add(const ActionSet& other) { bits_ |= other.bits_; }
  void Remove(const ActionSet& other) { bits_ &= ~other.bits_; }
  bool Contains(ActionType a) const { return bits_.test(static_cast<std::size_t>(a)); }
  // True when every action of `other` is here (anyAction contains all).
  bool ContainsAll(const ActionSet& other) const {
    return Contains(ActionType::kAnyAction) || (other.bits_ & ~bits_).none();
  }
  bool empty() const { return bits_.none(); }
  // The names, in the order of action_types.def.
  std::vector<std::string_view> Names() const;
  bool operator==(const ActionSet&) const = default;

 private:
  std::bitset<static_cast<std::size_t>(ActionType::kCount)> bits_;
};

// What a privilege applies to, as a role document's `resource` spells it:
// {cluster: true}, {anyResource: true}, {db: "", collection: ""} (every normal namespace),
// {db: "d", collection: ""} (database d), {db: "", collection: "c"} (collection c of every
// database), {db: "d", collection: "c"}.
struct ResourcePattern {
  enum class Kind : std::uint8_t {
    kCluster,
    kAnyResource,
    kAnyNormalResource,
    kDatabase,
    kCollectionName,
    kExactNamespace
  };
  Kind kind = Kind::kAnyNormalResource;
  std::string db;
  std::string collection;

  static ResourcePattern Cluster() { return {Kind::kCluster, "", ""}; }
  static ResourcePattern AnyResource() { return {Kind::kAnyResource, "", ""}; }
  static ResourcePattern AnyNormal() { return {Kind::kAnyNormalResource, "", ""}; }
  static ResourcePattern Database(std::string db) { return {Kind::kDatabase, std::move(db), ""}; }
  static ResourcePattern Namespace(std::string db, std::string coll) {
    return {Kind::kExactNamespace, std::move(db), std::move(coll)};
  }

  // Parses a role document's `resource`; BadValue for anything else.
  static StatusWith<ResourcePattern> Parse(bson::DocumentView resource);
  // The `resource` document, as rolesInfo and connectionStatus show it.
  bson::Document ToDocument() const;
  bool operator==(const ResourcePattern&) const = default;
};

// What a command acts on: the cluster, a database, one namespace, or every normal namespace
// (a whole-deployment change stream).
struct Target {
  enum class Kind : std::uint8_t { kCluster, kDatabase, kNamespace, kEveryDatabase };
  Kind kind = Kind::kCluster;
  std::string db;
  std::string collection;

  static Target Cluster() { return {Kind::kCluster, "", ""}; }
  static Target Database(std::string db) { return {Kind::kDatabase, std::move(db), ""}; }
  static Target Namespace(std::string db, std::string coll) {
    return {Kind::kNamespace, std::move(db), std::move(coll)};
  }
  static Target EveryDatabase() { return {Kind::kEveryDatabase, "", ""}; }
};

// Whether `pattern` covers `target`, by mongod's rules: "normal" patterns (a database, a
// collection name, every normal namespace) leave out system.* collections.
bool Covers(const ResourcePattern& pattern, const Target& target);

struct Privilege {
  ResourcePattern resource;
  ActionSet actions;

  // Parses {resource: {...}, actions: [names]}; BadValue for unknown actions, as mongod.
  static StatusWith<Privilege> Parse(bson::DocumentView privilege);
  bson::Document ToDocument() const;
};

// A user's privileges, merged by resource.
class PrivilegeSet {
 public:
  void Add(const Privilege& privilege);
  void Add(const std::vector<Privilege>& privileges);
  // Whether the union of the actions of every privilege that covers `target` holds `actions`.
  bool Allows(const Target& target, const ActionSet& actions) const;
  // Whether some privilege applies to database `db` or a collection of it (listDatabases'
  // authorizedDatabases).
  bool AnyOnDatabase(std::string_view db) const;
  const std::vector<Privilege>& privileges() const { return privileges_; }

 private:
  std::vector<Privilege> privileges_;
};

}  // namespace quarry::auth
