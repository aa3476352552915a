#include "exec/index_usage.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace quarry::exec {
namespace {

// Ids far from what other tests' catalogs hand out: the table is process-wide.
constexpr storage::IndexId kIndex = 900001;

TEST(IndexUsageTest, CountsEveryUseFromEveryThread) {
  ResetIndexUsage(kIndex);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) RecordIndexUse(kIndex);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(IndexUsageOf(kIndex).ops, 4000);
}

TEST(IndexUsageTest, ResetStartsAgainFromNow) {
  RecordIndexUse(kIndex + 1);
  const std::int64_t first_since = IndexUsageOf(kIndex + 1).since_millis;
  ResetIndexUsage(kIndex + 1);
  EXPECT_EQ(IndexUsageOf(kIndex + 1).ops, 0);
  EXPECT_GE(IndexUsageOf(kIndex + 1).since_millis, first_since);
}

TEST(IndexUsageTest, IdIndexesOfCollectionsAreCountedApart) {
  const storage::IndexId a = IdIndexUsageKey(7);
  const storage::IndexId b = IdIndexUsageKey(8);
  ResetIndexUsage(a);
  ResetIndexUsage(b);
  RecordIndexUse(a);
  EXPECT_EQ(IndexUsageOf(a).ops, 1);
  EXPECT_EQ(IndexUsageOf(b).ops, 0);
  EXPECT_NE(a, storage::IndexId{7});  // never an index id
}

}  // namespace
}  // namespace quarry::exec
