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

namespace quarry::commands {
namespace {

// The lower bound of the bucket one operation of `micros` lands in.
std::int64_t BucketOf(std::int64_t micros) {
  LatencyHistogram histogram;
  histogram.Add(micros);
  const LatencyHistogram::Figures figures = histogram.Read();
  for (std::size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    if (figures.buckets[i] == 1) return LatencyHistogram::LowerBounds()[i];
  }
  ADD_FAILURE() << "no bucket for " << micros;
  return -1;
}

TEST(LatencyHistogramTest, BucketsAreMongodsPowersOfTwoWithHalvesInTheMiddle) {
  EXPECT_EQ(BucketOf(0), 0);
  EXPECT_EQ(BucketOf(1), 0);
  EXPECT_EQ(BucketOf(3), 2);
  EXPECT_EQ(BucketOf(2047), 1024);
  EXPECT_EQ(BucketOf(2048), 2048);
  EXPECT_EQ(BucketOf(3071), 2048);
  EXPECT_EQ(BucketOf(3072), 3072);
  EXPECT_EQ(BucketOf(4095), 3072);
  EXPECT_EQ(BucketOf(1572864), 1572864);
  EXPECT_EQ(BucketOf(3145727), 2097152);  // past 2^21 the halves end
  EXPECT_EQ(BucketOf(std::int64_t{1} << 45), std::int64_t{1} << 40);
  EXPECT_EQ(LatencyHistogram::LowerBounds().back(), std::int64_t{1} << 40);
}

TEST(LatencyHistogramTest, SumsAndCountsEveryOperation) {
  LatencyHistogram histogram;
  for (std::int64_t micros : {5, 7, 100}) histogram.Add(micros);
  const LatencyHistogram::Figures figures = histogram.Read();
  EXPECT_EQ(figures.micros, 112);
  EXPECT_EQ(figures.ops, 3);
}

TEST(NamespaceUsageTest, LatencyAndScansArePerNamespace) {
  NamespaceUsage usage;
  using std::chrono::microseconds;
  usage.Record("db.c", false, NamespaceUsage::kQueries, microseconds(30), nullptr,
               {.latency = std::nullopt, .collection_scan = true, .tailable = false});
  usage.Record("db.c", false, NamespaceUsage::kCommands, microseconds(10), nullptr,
               {.latency = NamespaceUsage::kReads, .collection_scan = true, .tailable = true});
  usage.Record("db.c", true, NamespaceUsage::kInsert, microseconds(5));
  const NamespaceUsage::QueryFigures c = usage.Query("db.c");
  EXPECT_EQ(c.latency[NamespaceUsage::kReads].ops, 2);
  EXPECT_EQ(c.latency[NamespaceUsage::kReads].micros, 40);
  EXPECT_EQ(c.latency[NamespaceUsage::kWrites].ops, 1);
  EXPECT_EQ(c.latency[NamespaceUsage::kOtherCommands].ops, 0);
  EXPECT_EQ(c.collection_scans, 2);
  EXPECT_EQ(c.non_tailable_collection_scans, 1);
  EXPECT_EQ(usage.Query("db.other").latency[NamespaceUsage::kReads].ops, 0);
}

}  // namespace
}  // namespace quarry::commands
