// The benchmark's own logic: percentiles, the shared key counter, key and value text, and
// reading strace's summary.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "bench/clients/latency.h"
#include "bench/pointops/key_space.h"
#include "bench/pointops/syscall_count.h"

namespace quarry::bench {
namespace {

TEST(LatencyTest, PercentilesAreNearestRankOfMeasuredValues) {
  std::vector<double> micros;
  for (int value = 100; value >= 1; --value) micros.push_back(value);
  LatencySummary summary = Summarize(micros, 2.0);
  EXPECT_EQ(summary.ops, 100);
  EXPECT_DOUBLE_EQ(summary.ops_per_second, 50.0);
  EXPECT_DOUBLE_EQ(summary.p50_micros, 50.0);
  EXPECT_DOUBLE_EQ(summary.p99_micros, 99.0);
  EXPECT_DOUBLE_EQ(summary.max_micros, 100.0);
}

TEST(LatencyTest, OneSlowOperationInAHundredIsBelowP99ButNotInTwenty) {
  std::vector<double> hundred(99, 10.0);
  hundred.push_back(5'000);
  EXPECT_DOUBLE_EQ(Summarize(hundred, 1).p99_micros, 10.0);
  std::vector<double> twenty(19, 10.0);
  twenty.push_back(5'000);
  EXPECT_DOUBLE_EQ(Summarize(twenty, 1).p99_micros, 5'000.0);
}

TEST(LatencyTest, EmptyRowSummarisesToZeros) {
  LatencySummary summary = Summarize({}, 0);
  EXPECT_EQ(summary.ops, 0);
  EXPECT_EQ(summary.ops_per_second, 0);
  EXPECT_EQ(summary.p99_micros, 0);
}

TEST(KeySpaceTest, ConcurrentWritersGetEveryIndexOnceUpToCapacity) {
  KeySpace keys(500, 10'000);
  std::vector<std::vector<std::size_t>> taken(4);
  std::vector<std::thread> writers;
  for (int writer_idx = 0; writer_idx < 4; ++writer_idx) {
    writers.emplace_back([&, writer_idx] {
      while (std::optional<std::size_t> index = keys.NextToWrite()) {
        taken[writer_idx].push_back(*index);
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  std::set<std::size_t> all;
  std::size_t total = 0;
  for (const auto& indexes : taken) {
    all.insert(indexes.begin(), indexes.end());
    total += indexes.size();
  }
  EXPECT_EQ(total, 10'000u);
  EXPECT_EQ(all.size(), 10'000u);
  EXPECT_EQ(*all.begin(), 500u);
  EXPECT_EQ(*all.rbegin(), 10'499u);
  EXPECT_EQ(keys.end(), 10'500u);
}

TEST(KeySpaceTest, KeysAreDistinctAndValuesHaveTheirSizeAndNoDigit) {
  EXPECT_EQ(KeyOf(42), "key:0000000042");
  EXPECT_NE(KeyOf(1), KeyOf(10));
  const std::string value = ValueOf(7, 1'000);
  EXPECT_EQ(value.size(), 1'000u);
  EXPECT_EQ(value.find_first_of("0123456789"), std::string::npos);
  EXPECT_NE(ValueOf(7, 100), ValueOf(8, 100));
}

TEST(StraceSummaryTest, ReadsCallsPerSyscallWithAndWithoutErrorsLeavingOutTheTotal) {
  const std::string summary =
      "% time     seconds  usecs/call     calls    errors syscall\n"
      "------ ----------- ----------- --------- --------- ----------------\n"
      " 45.00    0.000450          11        40           sendmsg\n"
      " 30.00    0.000300           3       100           epoll_wait\n"
      " 20.00    0.000200           4        50        50 recvfrom\n"
      "  5.00    0.000050          50         1           futex\n"
      "------ ----------- ----------- --------- --------- ----------------\n"
      "100.00    0.001000           5       191        50 total\n";
  std::vector<SyscallCount> counts = ParseStraceSummary(summary);
  ASSERT_EQ(counts.size(), 4u);
  EXPECT_EQ(counts[0].name, "epoll_wait");
  EXPECT_EQ(counts[0].calls, 100);
  EXPECT_EQ(counts[1].name, "recvfrom");
  EXPECT_EQ(counts[1].calls, 50);
  EXPECT_EQ(counts[1].errors, 50);
  EXPECT_EQ(counts[0].errors, 0);
  EXPECT_EQ(counts[2].name, "sendmsg");
  EXPECT_EQ(counts[3].name, "futex");
  EXPECT_EQ(counts[3].calls, 1);
}

TEST(StraceSummaryTest, NoTableGivesNoRows) {
  EXPECT_TRUE(ParseStraceSummary("").empty());
  EXPECT_TRUE(ParseStraceSummary("strace: attach: ptrace(PTRACE_SEIZE, 1): Operation not "
                                 "permitted\n")
                  .empty());
}

}  // namespace
}  // namespace quarry::bench
