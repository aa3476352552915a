// NamespaceUsage: a command counts under total, its lock and its kind; namespaces stay apart;
// Forget and ForgetDatabase drop only what they name, also while other threads record; a
// connection's handle skips the lookup until a namespace is forgotten.
#include "commands/namespace_usage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace quarry::commands {
namespace {

using Usage = NamespaceUsage;
using std::chrono::microseconds;

const Usage::Row* Find(const std::vector<Usage::Row>& rows, std::string_view ns) {
  for (const Usage::Row& row : rows) {
    if (row.ns == ns) return &row;
  }
  return nullptr;
}

TEST(NamespaceUsageTest, ACommandCountsUnderTotalItsLockAndItsKind) {
  Usage usage;
  usage.Record("db.c", /*writes=*/false, Usage::kQueries, microseconds(30));
  usage.Record("db.c", /*writes=*/true, Usage::kInsert, microseconds(70));
  usage.Record("db.d", /*writes=*/false, Usage::kCommands, microseconds(5));
  const std::vector<Usage::Row> rows = usage.Rows();
  ASSERT_EQ(rows.size(), 2u);
  const Usage::Row* c = Find(rows, "db.c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->sections[Usage::kTotal].count, 2);
  EXPECT_EQ(c->sections[Usage::kTotal].micros, 100);
  EXPECT_EQ(c->sections[Usage::kReadLock].micros, 30);
  EXPECT_EQ(c->sections[Usage::kWriteLock].micros, 70);
  EXPECT_EQ(c->sections[Usage::kQueries].count, 1);
  EXPECT_EQ(c->sections[Usage::kInsert].count, 1);
  EXPECT_EQ(c->sections[Usage::kCommands].count, 0);
  EXPECT_EQ(Find(rows, "db.d")->sections[Usage::kCommands].micros, 5);
}

TEST(NamespaceUsageTest, ForgettingDropsOnlyWhatItNames) {
  Usage usage;
  for (std::string_view ns : {"db.a", "db.b", "dbx.a", "other.a"}) {
    usage.Record(ns, false, Usage::kQueries, microseconds(1));
  }
  usage.Forget("db.a");
  usage.ForgetDatabase("db");
  const std::vector<Usage::Row> rows = usage.Rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].ns, "dbx.a");
  EXPECT_EQ(rows[1].ns, "other.a");
}

TEST(NamespaceUsageTest, AHandleCountsWithoutALookupUntilANamespaceIsForgotten) {
  Usage usage;
  Usage::Handle handle;
  usage.Record("db.c", false, Usage::kQueries, microseconds(1), &handle);
  usage.Record("db.c", false, Usage::kQueries, microseconds(1), &handle);
  EXPECT_EQ(handle.ns, "db.c");
  EXPECT_EQ(usage.Rows().at(0).sections[Usage::kQueries].count, 2);
  // Another namespace through the same handle counts there, not in db.c.
  usage.Record("db.d", false, Usage::kQueries, microseconds(1), &handle);
  EXPECT_EQ(Find(usage.Rows(), "db.c")->sections[Usage::kQueries].count, 2);
  // Once db.d is forgotten, the handle does not count into the forgotten counters.
  usage.Forget("db.d");
  usage.Record("db.d", false, Usage::kQueries, microseconds(1), &handle);
  EXPECT_EQ(Find(usage.Rows(), "db.d")->sections[Usage::kQueries].count, 1);
}

TEST(NamespaceUsageTest, RecordsWhileAnotherThreadForgets) {
  Usage usage;
  std::atomic<bool> stop{false};
  std::thread forgetter([&] {
    while (!stop.load()) usage.Forget("db.c");
  });
  Usage::Handle handle;
  for (int i = 0; i < 20000; ++i) {
    usage.Record("db.c", true, Usage::kUpdate, microseconds(1), i % 2 == 0 ? &handle : nullptr);
  }
  stop = true;
  forgetter.join();
  usage.Record("db.c", true, Usage::kUpdate, microseconds(1));
  const std::vector<Usage::Row> rows = usage.Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_GE(rows[0].sections[Usage::kUpdate].count, 1);
  EXPECT_EQ(rows[0].sections[Usage::kUpdate].count, rows[0].sections[Usage::kWriteLock].count);
}

}  // namespace
}  // namespace quarry::commands
