// The index changes of an update: none when the fields the keys come from keep their bytes,
// the old and new keys otherwise, including where other fields decide (a partial index's
// filter) and where equal keys carry other values (1 and 1.0).
#include "exec/index_maintenance.h"

#include <gtest/gtest.h>

#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;

catalog::IndexInfo Index(std::string_view key_json, std::string_view options_json = "{}") {
  bson::DocumentBuilder spec;
  spec.AppendInt32("v", 2);
  spec.AppendDocument("key", Doc(key_json));
  spec.AppendString("name", "test");
  spec.AppendElements(Doc(options_json));
  catalog::IndexInfo index;
  index.spec = std::move(spec).Finish();
  index.id = 7;
  return index;
}

struct Counts {
  std::size_t removed = 0;
  std::size_t added = 0;
  bool operator==(const Counts&) const = default;
};

Counts ChangesOf(const catalog::IndexInfo& index, std::string_view before_json,
                 std::string_view after_json) {
  bool multikey = false;
  StatusWith<storage::IndexChanges> changes =
      IndexChangesFor(index, Doc(before_json), Doc(after_json), &multikey);
  EXPECT_TRUE(changes.ok()) << changes.status().ToString();
  if (!changes.ok()) return {};
  return {changes.value().removed.size(), changes.value().added.size()};
}

TEST(IndexMaintenanceTest, AnUpdateOfOtherFieldsChangesNoKey) {
  const catalog::IndexInfo index = Index(R"({"a.b": 1, "c": -1})");
  EXPECT_EQ(ChangesOf(index, R"({"_id": 1, "a": {"b": 1}, "c": 2, "x": 1})",
                      R"({"_id": 1, "a": {"b": 1}, "c": 2, "x": 2, "y": [1, 2]})"),
            Counts{});
}

TEST(IndexMaintenanceTest, AnUpdateOfAKeyFieldReplacesItsKey) {
  const catalog::IndexInfo index = Index(R"({"a.b": 1})");
  EXPECT_EQ(ChangesOf(index, R"({"_id": 1, "a": {"b": 1}})", R"({"_id": 1, "a": {"b": 2}})"),
            (Counts{1, 1}));
  // A change beside the key's path inside the same top-level field keeps the key.
  EXPECT_EQ(ChangesOf(index, R"({"_id": 1, "a": {"b": 1, "z": 1}})",
                      R"({"_id": 1, "a": {"b": 1, "z": 2}})"),
            Counts{});
}

TEST(IndexMaintenanceTest, AnEqualKeyWithAnotherTypeRewritesItsValues) {
  const catalog::IndexInfo index = Index(R"({"a": 1})");
  EXPECT_EQ(ChangesOf(index, R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1.0})"), (Counts{0, 1}));
}

TEST(IndexMaintenanceTest, APartialIndexFollowsItsFilterFields) {
  const catalog::IndexInfo index =
      Index(R"({"a": 1})", R"({"partialFilterExpression": {"b": {"$gt": 5}}})");
  EXPECT_EQ(ChangesOf(index, R"({"_id": 1, "a": 1, "b": 1})", R"({"_id": 1, "a": 1, "b": 10})"),
            (Counts{0, 1}));
  EXPECT_EQ(ChangesOf(index, R"({"_id": 1, "a": 1, "b": 10})", R"({"_id": 1, "a": 1, "b": 1})"),
            (Counts{1, 0}));
}

TEST(IndexMaintenanceTest, AWildcardIndexFollowsEveryField) {
  const catalog::IndexInfo index = Index(R"({"$**": 1})");
  EXPECT_EQ(ChangesOf(index, R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1, "b": 2})"),
            (Counts{0, 1}));
}

}  // namespace
}  // namespace quarry::exec
