// The YCSB benchmark's own logic: key choice, the acknowledged-insert limit, record text and
// its checks, the warm-up's reads, and the goals' verdicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/ycsb/inserted_keys.h"
#include "bench/ycsb/record.h"
#include "bench/ycsb/store_session.h"
#include "bench/ycsb/workload.h"
#include "bench/ycsb/ycsb_table.h"
#include "bench/ycsb/zipfian.h"

namespace quarry::bench {
namespace {

constexpr int kDraws = 200'000;

TEST(ZipfianTest, ZetaPastItsExactTermsMatchesTheDirectSum) {
  const std::uint64_t n = 3'000'000;
  double direct = 0;
  for (std::uint64_t i = 1; i <= n; ++i) direct += std::pow(static_cast<double>(i), -0.99);
  EXPECT_NEAR(Zeta(n, 0.99), direct, direct * 1e-12);
}

TEST(ZipfianTest, DrawsStayInRangeAndFavourTheFirstItems) {
  std::mt19937_64 random(7);
  ZipfianGenerator zipf(1'000);
  std::vector<int> counts(1'000);
  for (int draw = 0; draw < kDraws; ++draw) {
    const std::uint64_t item = zipf.Next(random);
    ASSERT_LT(item, 1'000u);
    ++counts[item];
  }
  EXPECT_GT(counts[0], counts[1]);
  EXPECT_GT(counts[1], counts[10]);
  EXPECT_GT(counts[0], 50 * std::max(counts[500], 1));
  // Item 0's share is 1 / zeta(1000).
  EXPECT_NEAR(counts[0] / static_cast<double>(kDraws), 1 / Zeta(1'000, 0.99), 0.01);
}

TEST(ZipfianTest, TheSameSeedGivesTheSameKeys) {
  std::mt19937_64 first(42);
  std::mt19937_64 second(42);
  const ScrambledZipfianChooser chooser;
  for (int draw = 0; draw < 1'000; ++draw) {
    ASSERT_EQ(chooser.Next(first, 100'000), chooser.Next(second, 100'000));
  }
}

TEST(ZipfianTest, ScrambledKeysAreInRangeSkewedAndScattered) {
  constexpr std::uint64_t kItems = 100'000;
  std::mt19937_64 random(1);
  const ScrambledZipfianChooser chooser;
  std::map<std::uint64_t, int> counts;
  for (int draw = 0; draw < kDraws; ++draw) {
    const std::uint64_t item = chooser.Next(random, kItems);
    ASSERT_LT(item, kItems);
    ++counts[item];
  }
  std::vector<std::pair<int, std::uint64_t>> by_count;
  for (const auto& [item, count] : counts) by_count.emplace_back(count, item);
  std::sort(by_count.rbegin(), by_count.rend());
  // The median key (counting keys never drawn as 0) is drawn about twice in 200,000; the most
  // popular one thousands of times.
  std::vector<int> all_counts(kItems, 0);
  for (const auto& [item, count] : counts) all_counts[item] = count;
  std::nth_element(all_counts.begin(), all_counts.begin() + kItems / 2, all_counts.end());
  const int median = all_counts[kItems / 2];
  EXPECT_GT(by_count.front().first, 100 * std::max(median, 1));
  // The ten most popular keys are spread over the key space, not side by side.
  std::vector<std::uint64_t> top;
  for (int rank = 0; rank < 10; ++rank) top.push_back(by_count[rank].second);
  std::sort(top.begin(), top.end());
  EXPECT_GT(top.back() - top.front(), kItems / 10);
  int adjacent = 0;
  for (std::size_t rank = 1; rank < top.size(); ++rank) adjacent += top[rank] == top[rank - 1] + 1;
  EXPECT_LT(adjacent, 3);
}

TEST(ZipfianTest, LatestFavoursTheHighestKeysAndFollowsGrowth) {
  std::mt19937_64 random(3);
  LatestChooser latest(1'000);
  std::map<std::uint64_t, int> counts;
  for (int draw = 0; draw < kDraws; ++draw) {
    const std::uint64_t item = latest.Next(random, 1'000);
    ASSERT_LT(item, 1'000u);
    ++counts[item];
  }
  EXPECT_GT(counts[999], counts[998]);
  EXPECT_GT(counts[999], 50 * std::max(counts[500], 1));
  int newest = 0;
  for (int draw = 0; draw < 1'000; ++draw) {
    const std::uint64_t item = latest.Next(random, 1'010);
    ASSERT_LT(item, 1'010u);
    newest += item == 1'009;
  }
  EXPECT_GT(newest, 50);
}

TEST(InsertedKeysTest, TheLimitWaitsForEarlierInsertsToBeAcknowledged) {
  InsertedKeys keys(100);
  EXPECT_EQ(keys.limit(), 100u);
  const std::uint64_t first = keys.Claim();
  const std::uint64_t second = keys.Claim();
  const std::uint64_t third = keys.Claim();
  EXPECT_EQ(first, 100u);
  EXPECT_EQ(third, 102u);
  keys.Acknowledge(third);
  keys.Acknowledge(second);
  EXPECT_EQ(keys.limit(), 100u);
  keys.Acknowledge(first);
  EXPECT_EQ(keys.limit(), 103u);
}

TEST(InsertedKeysTest, ConcurrentInsertersEndWithEveryKeyBelowTheLimit) {
  InsertedKeys keys(0);
  std::vector<std::thread> inserters;
  for (int thread_idx = 0; thread_idx < 4; ++thread_idx) {
    inserters.emplace_back([&keys] {
      for (int insert = 0; insert < 10'000; ++insert) keys.Acknowledge(keys.Claim());
    });
  }
  for (std::thread& inserter : inserters) inserter.join();
  EXPECT_EQ(keys.limit(), 40'000u);
}

TEST(RecordTest, KeysSortAsTheirIndexesAndValuesArePrintable) {
  EXPECT_EQ(UserKey(42), "user0000000042");
  EXPECT_LT(UserKey(9), UserKey(10));
  std::mt19937_64 random(1);
  const Record record = RandomRecord(random);
  for (const std::string& value : record) {
    EXPECT_EQ(value.size(), kFieldBytes);
    EXPECT_TRUE(std::all_of(value.begin(), value.end(),
                            [](char c) { return std::isalnum(c) || c == '_' || c == '-'; }));
  }
  EXPECT_NE(record[0], record[1]);
}

TEST(RecordTest, JsonOfARecordCountsAsWholeAndDamageShows) {
  std::mt19937_64 random(2);
  Record record = RandomRecord(random);
  EXPECT_EQ(CountRecordFieldsInJson(RecordJson(record)), kFieldCount);
  // PostgreSQL prints jsonb with its own spacing and key order.
  EXPECT_EQ(CountRecordFieldsInJson("{\"field1\": \"" + record[1] + "\",\"field0\":\"" + record[0] +
                                    "\"}"),
            2);
  record[3].pop_back();
  EXPECT_EQ(CountRecordFieldsInJson(RecordJson(record)), kFieldCount - 1);
  EXPECT_EQ(CountRecordFieldsInJson("{}"), 0);
  EXPECT_EQ(CountRecordFieldsInJson("{\"field0\": 1}"), -1);
  EXPECT_EQ(CountRecordFieldsInJson("[\"field0\"]"), -1);
  EXPECT_EQ(CountRecordFieldsInJson("{\"field0\": \"abc"), -1);
}

TEST(RecordTest, ScanCheckWantsWholeRecordsInKeyOrderFromTheStart) {
  ScanCheck passing("user0000000005");
  passing.Add("user0000000005", kFieldCount);
  passing.Add("user0000000007", kFieldCount);
  EXPECT_TRUE(passing.Passed(2));
  EXPECT_FALSE(passing.Passed(1));

  ScanCheck before_start("user0000000005");
  before_start.Add("user0000000004", kFieldCount);
  EXPECT_FALSE(before_start.Passed(10));

  ScanCheck repeated("user0000000005");
  repeated.Add("user0000000006", kFieldCount);
  repeated.Add("user0000000006", kFieldCount);
  EXPECT_FALSE(repeated.Passed(10));

  ScanCheck partial("user0000000005");
  partial.Add("user0000000006", kFieldCount - 1);
  EXPECT_FALSE(partial.Passed(10));

  EXPECT_FALSE(ScanCheck("user0000000005").Passed(10));
}

// Reads answer from a set of stored keys, whole unless the key is `damaged`.
class ReadCountingStore : public StoreSession {
 public:
  ReadCountingStore(std::map<std::string, int>* reads, std::string damaged)
      : reads_(reads), damaged_(std::move(damaged)) {}
  Status Reset() override { return Status::OK(); }
  Status Insert(const std::string&, const Record&) override { return Status::OK(); }
  StatusWith<int> Read(const std::string& key) override {
    ++(*reads_)[key];
    return key == damaged_ ? kFieldCount - 1 : kFieldCount;
  }
  StatusWith<bool> Update(const std::string&, int, const std::string&) override { return true; }
  StatusWith<bool> Scan(const std::string&, int) override { return true; }

 private:
  std::map<std::string, int>* reads_;
  std::string damaged_;
};

TEST(WarmUpTest, ClientsReadEveryRecordOnceAndCountDamagedOnes) {
  std::map<std::string, int> reads;
  std::atomic<std::uint64_t> next_key{0};
  std::atomic<std::int64_t> failed_checks{0};
  ClientFactory factory = WarmUpClients(
      [&reads]() -> StatusWith<std::unique_ptr<StoreSession>> {
        return std::unique_ptr<StoreSession>(
            std::make_unique<ReadCountingStore>(&reads, UserKey(7)));
      },
      50, &next_key, &failed_checks);
  std::mt19937_64 random(1);
  std::vector<std::unique_ptr<TimedClient>> clients;
  for (int i = 0; i < 3; ++i) {
    StatusWith<std::unique_ptr<TimedClient>> client = factory();
    ASSERT_TRUE(client.ok());
    clients.push_back(std::move(client).value());
  }
  // Three clients taking turns, as threads would, until each says it is done.
  for (bool any_ran = true; any_ran;) {
    any_ran = false;
    for (auto& client : clients) {
      StatusWith<bool> ran = client->RunOnce(random);
      ASSERT_TRUE(ran.ok());
      any_ran = any_ran || ran.value();
    }
  }
  ASSERT_EQ(reads.size(), 50u);
  for (std::uint64_t i = 0; i < 50; ++i) EXPECT_EQ(reads[UserKey(i)], 1) << i;
  EXPECT_EQ(failed_checks.load(), 1);
}

CellResult Cell(const std::string& workload, const std::string& system, double ops_per_second) {
  CellResult cell{workload, 4, system, {}, 0};
  cell.latency.ops = 100;
  cell.latency.ops_per_second = ops_per_second;
  return cell;
}

std::string GoalLine(const tools::client::ResultTable& table, const std::string& start) {
  for (const std::string& note : table.notes) {
    if (note.starts_with(start)) return note;
  }
  return "";
}

TEST(YcsbTableTest, QuarryRowsCarryRatiosAndEachGoalItsVerdict) {
  const std::vector<CellResult> results = {
      Cell(kLoad, kQuarry, 50), Cell(kLoad, kPostgres, 100), Cell(kLoad, kRedis, 100),
      Cell("A", kQuarry, 700),  Cell("A", kPostgres, 500),   Cell("A", kRedis, 1'000),
      Cell("E", kQuarry, 300),  Cell("E", kPostgres, 400),   Cell("E", kRedis, 2'000)};
  const tools::client::ResultTable table = YcsbTable(YcsbSettings(), results);
  ASSERT_EQ(table.rows.size(), results.size());
  const std::size_t to_postgres = table.ColumnIndex("ratio_to_postgres");
  const std::size_t to_redis = table.ColumnIndex("ratio_to_redis");
  EXPECT_DOUBLE_EQ(std::get<double>(table.rows[3][to_postgres]), 1.4);
  EXPECT_DOUBLE_EQ(std::get<double>(table.rows[3][to_redis]), 0.7);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(table.rows[4][to_postgres]));
  // The load row has ratios but no verdict; E misses PostgreSQL but is not a Redis goal.
  EXPECT_DOUBLE_EQ(std::get<double>(table.rows[0][to_postgres]), 0.5);
  EXPECT_EQ(GoalLine(table, "goal: Quarry ahead of PostgreSQL"),
            "goal: Quarry ahead of PostgreSQL-JSONB on every workload and thread count: MISSED "
            "(E at 4 threads: 0.75)");
  EXPECT_EQ(GoalLine(table, "goal: Quarry >="),
            "goal: Quarry >= 0.60 x Redis's ops/s on A, B, C, D and F: met");
}

TEST(YcsbTableTest, WarmUpRowsCarryRatiosButNoVerdict) {
  const std::vector<CellResult> results = {
      Cell(kWarmUp, kQuarry, 50), Cell(kWarmUp, kPostgres, 100), Cell(kWarmUp, kRedis, 1'000),
      Cell("A", kQuarry, 700),    Cell("A", kPostgres, 500),     Cell("A", kRedis, 1'000)};
  const tools::client::ResultTable table = YcsbTable(YcsbSettings(), results);
  EXPECT_DOUBLE_EQ(std::get<double>(table.rows[0][table.ColumnIndex("ratio_to_postgres")]), 0.5);
  EXPECT_EQ(GoalLine(table, "goal: Quarry ahead of PostgreSQL"),
            "goal: Quarry ahead of PostgreSQL-JSONB on every workload and thread count: met");
  EXPECT_EQ(GoalLine(table, "goal: Quarry >="),
            "goal: Quarry >= 0.60 x Redis's ops/s on A, B, C, D and F: met");
  EXPECT_TRUE(GoalLine(table, "warm-up rows:").starts_with("warm-up rows: after the loads"));
  YcsbSettings cold;
  cold.warm_up = false;
  EXPECT_TRUE(GoalLine(YcsbTable(cold, results), "no warm-up:").starts_with("no warm-up:"));
}

TEST(YcsbTableTest, CpuPerOperationOnlyWhereMeasured) {
  CellResult quarry = Cell("A", kQuarry, 700);
  quarry.server_cpu_seconds = 0.005;  // over its 100 operations
  quarry.client_cpu_seconds = 0.002;
  CellResult postgres = Cell("A", kPostgres, 800);
  postgres.server_cpu_seconds = 0.004;
  const tools::client::ResultTable table = YcsbTable(
      YcsbSettings(), {quarry, postgres, Cell("A", kRedis, 1'000), Cell("B", kQuarry, 700)});
  const std::size_t server = table.ColumnIndex("server_cpu_micros_per_op");
  const std::size_t client = table.ColumnIndex("client_cpu_micros_per_op");
  EXPECT_DOUBLE_EQ(std::get<double>(table.rows[0][server]), 50.0);
  EXPECT_DOUBLE_EQ(std::get<double>(table.rows[0][client]), 20.0);
  EXPECT_DOUBLE_EQ(std::get<double>(table.rows[1][server]), 40.0);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(table.rows[1][client]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(table.rows[2][server]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(table.rows[3][server]));
}

TEST(YcsbTableTest, AGoalWithoutItsStoreIsNotMeasured) {
  const tools::client::ResultTable table =
      YcsbTable(YcsbSettings(), {Cell("A", kQuarry, 700), Cell("A", kRedis, 1'000)});
  EXPECT_EQ(GoalLine(table, "goal: Quarry ahead"),
            "goal: Quarry ahead of PostgreSQL-JSONB on every workload and thread count: not "
            "measured");
}

}  // namespace
}  // namespace quarry::bench
