#include "auth/privilege.h"

#include <gtest/gtest.h>

#include "auth/builtin_roles.h"
#include "bson/json.h"

namespace quarry::auth {
namespace {

using A = ActionType;

PrivilegeSet Role(std::string_view role, std::string_view db) {
  PrivilegeSet set;
  set.Add(*BuiltinRolePrivileges(role, db));
  return set;
}

TEST(PrivilegeTest, ReadOnADatabaseReadsItsCollectionsOnly) {
  PrivilegeSet read = Role("read", "shop");
  EXPECT_TRUE(read.Allows(Target::Namespace("shop", "orders"), {A::kFind}));
  EXPECT_TRUE(read.Allows(Target::Namespace("shop", "orders"), {A::kChangeStream}));
  EXPECT_FALSE(read.Allows(Target::Namespace("shop", "orders"), {A::kInsert}));
  EXPECT_FALSE(read.Allows(Target::Namespace("other", "orders"), {A::kFind}));
  EXPECT_FALSE(read.Allows(Target::Namespace("shop", "system.users"), {A::kFind}));
  EXPECT_TRUE(read.Allows(Target::Database("shop"), {A::kListCollections}));
  EXPECT_FALSE(read.Allows(Target::Cluster(), {A::kServerStatus}));
}

TEST(PrivilegeTest, AnyDatabaseRolesCoverEveryNormalNamespaceButNotSystemOnes) {
  PrivilegeSet rw = Role("readWriteAnyDatabase", "admin");
  EXPECT_TRUE(rw.Allows(Target::Namespace("a", "b"), {A::kInsert, A::kFind, A::kRemove}));
  EXPECT_TRUE(rw.Allows(Target::Cluster(), {A::kListDatabases}));
  EXPECT_FALSE(rw.Allows(Target::Namespace("admin", "system.users"), {A::kFind}));
  EXPECT_TRUE(rw.Allows(Target::EveryDatabase(), {A::kChangeStream, A::kFind}));
  EXPECT_FALSE(BuiltinRolePrivileges("readWriteAnyDatabase", "shop").has_value());
}

TEST(PrivilegeTest, ClusterMonitorSeesServerStatusButCannotWrite) {
  PrivilegeSet monitor = Role("clusterMonitor", "admin");
  EXPECT_TRUE(monitor.Allows(Target::Cluster(), {A::kServerStatus, A::kInprog}));
  EXPECT_FALSE(monitor.Allows(Target::Cluster(), {A::kKillop}));
  EXPECT_FALSE(monitor.Allows(Target::Namespace("a", "b"), {A::kFind}));
}

TEST(PrivilegeTest, RootCanDoWhatTheOtherAdminRolesCan) {
  PrivilegeSet root = Role("root", "admin");
  EXPECT_TRUE(root.Allows(Target::Namespace("a", "b"), {A::kFind, A::kInsert, A::kDropIndex}));
  EXPECT_TRUE(root.Allows(Target::Database("a"), {A::kCreateUser, A::kDropDatabase}));
  EXPECT_TRUE(root.Allows(Target::Cluster(), {A::kServerStatus, A::kKillop, A::kKillAnyCursor}));
  EXPECT_TRUE(root.Allows(Target::Namespace("admin", "system.users"), {A::kFind}));
}

TEST(PrivilegeTest, DbAdminManagesButDoesNotRead) {
  PrivilegeSet admin = Role("dbAdmin", "shop");
  EXPECT_TRUE(admin.Allows(Target::Namespace("shop", "c"), {A::kCreateIndex, A::kCollMod}));
  EXPECT_FALSE(admin.Allows(Target::Namespace("shop", "c"), {A::kFind}));
  EXPECT_TRUE(Role("userAdmin", "shop").Allows(Target::Database("shop"), {A::kCreateUser}));
  EXPECT_TRUE(Role("dbOwner", "shop")
                  .Allows(Target::Namespace("shop", "c"), {A::kFind, A::kInsert, A::kCreateIndex}));
}

TEST(PrivilegeTest, ParsesRoleDocumentPrivilegesAndRefusesUnknownActions) {
  bson::Document doc =
      bson::FromJson(R"({"resource": {"db": "shop", "collection": ""}, "actions": ["find"]})")
          .value();
  StatusWith<Privilege> parsed = Privilege::Parse(doc);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().resource.kind, ResourcePattern::Kind::kDatabase);
  EXPECT_TRUE(parsed.value().actions.Contains(A::kFind));
  bson::Document bad =
      bson::FromJson(R"({"resource": {"cluster": true}, "actions": ["fly"]})").value();
  EXPECT_EQ(Privilege::Parse(bad).status().code(), ErrorCode::kBadValue);
  StatusWith<Privilege> again = Privilege::Parse(parsed.value().ToDocument());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().resource, parsed.value().resource);
  EXPECT_EQ(again.value().actions, parsed.value().actions);
}

}  // namespace
}  // namespace quarry::auth
