// QueryCycle: one full pass always, more passes only while the row is short of its time.
#include "bench/vector/query_cycle.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "bench/vector/hnswlib_baseline.h"

namespace quarry::bench {
namespace {

TEST(QueryCycleTest, WithoutAMinimumEachQueryComesOnceOnItsFirstPass) {
  QueryCycle cycle(5, 0);
  cycle.Start();
  std::vector<std::size_t> seen;
  for (std::optional<QueryCycle::Turn> turn = cycle.Next(); turn; turn = cycle.Next()) {
    EXPECT_TRUE(turn->first_pass);
    seen.push_back(turn->query);
  }
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(cycle.handed_out(), 5u);
}

TEST(QueryCycleTest, CyclesFromTheStartUntilTheMinimumTimeHasPassed) {
  QueryCycle cycle(3, 0.05);
  cycle.Start();
  std::size_t turns = 0;
  for (std::optional<QueryCycle::Turn> turn = cycle.Next(); turn; turn = cycle.Next()) {
    EXPECT_EQ(turn->query, turns % 3);
    EXPECT_EQ(turn->first_pass, turns < 3);
    ++turns;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GT(turns, 6u);
  EXPECT_EQ(cycle.handed_out(), turns);
  EXPECT_GE(cycle.SecondsSinceStart(), 0.05);
}

TEST(QueryCycleTest, AnEmptySetHasNoTurns) {
  QueryCycle cycle(0, 1);
  cycle.Start();
  EXPECT_FALSE(cycle.Next().has_value());
}

TEST(RunQueriesTest, KeepsFirstPassAnswersAndCountsEveryQuery) {
  const SearchRun run = RunQueries(
      4, 2,
      [&](std::size_t query) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return std::vector<std::uint32_t>{static_cast<std::uint32_t>(query * 10)};
      },
      0.03);
  ASSERT_EQ(run.answers.size(), 4u);
  for (std::size_t query = 0; query < 4; ++query) {
    EXPECT_EQ(run.answers[query],
              std::vector<std::uint32_t>{static_cast<std::uint32_t>(query * 10)});
  }
  EXPECT_GT(run.queries, 4u);
  EXPECT_GT(run.QueriesPerSecond(), 0);
}

}  // namespace
}  // namespace quarry::bench
