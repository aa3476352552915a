// How the network and bulk benchmarks turn measurements into tables, and which options they
// refuse before connecting.
#include <gtest/gtest.h>

#include "tools/bench/bulk_bench.h"
#include "tools/bench/network_bench.h"

namespace quarry::tools::bench {
namespace {

using client::Cell;
using client::ChartOptions;
using client::ResultTable;

NetworkPhase Phase(std::string compressor, std::string phase, std::int64_t physical,
                   double seconds) {
  NetworkPhase p;
  p.compressor = std::move(compressor);
  p.phase = std::move(phase);
  p.records = 100;
  p.bytes = 2'000'000;
  p.seconds = seconds;
  if (p.phase == "write") {
    p.server.physical_bytes_in = physical;
  } else {
    p.server.physical_bytes_out = physical;
  }
  return p;
}

const Cell& At(const ResultTable& table, std::size_t row, const std::string& key) {
  return table.rows.at(row).at(table.ColumnIndex(key));
}

TEST(NetworkBenchTableTest, SavingComparesEachDirectionWithNone) {
  NetworkBenchResult result;
  result.documents = 100;
  result.bytes = 2'000'000;
  result.phases = {Phase("none", "write", 2'000'000, 1.0), Phase("none", "read", 2'000'000, 0.5),
                   Phase("zstd", "write", 500'000, 1.0), Phase("zstd", "read", 800'000, 0.25)};
  ResultTable table = NetworkBenchTable({.uri = "mongodb://x"}, result);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 0, "saving_percent")), 0.0);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 2, "saving_percent")), 75.0);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 3, "saving_percent")), 60.0);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 3, "megabytes_per_second")), 8.0);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 3, "records_per_second")), 400.0);
  EXPECT_EQ(std::get<std::int64_t>(At(table, 3, "physical_bytes_out")), 800'000);
}

TEST(NetworkBenchTableTest, SavingIsEmptyWithoutANoneRun) {
  NetworkBenchResult result;
  result.phases = {Phase("snappy", "write", 1'000, 1.0)};
  ResultTable table = NetworkBenchTable({.uri = "mongodb://x"}, result);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(At(table, 0, "saving_percent")));
}

TEST(NetworkBenchTableTest, ChartShowsSpeedAndSavingByCompressorAndPhase) {
  ResultTable table = NetworkBenchTable({.uri = "mongodb://x"}, NetworkBenchResult{});
  ChartOptions chart = NetworkBenchChart(table);
  EXPECT_EQ(chart.label_columns, (std::vector<std::size_t>{0, 1}));
  ASSERT_EQ(chart.value_columns.size(), 2u);
  EXPECT_EQ(table.columns[chart.value_columns[0]].key, "megabytes_per_second");
}

TEST(NetworkBenchOptionsTest, RefusesBadOptionsBeforeConnecting) {
  auto code = [](NetworkBenchOptions options) {
    return ValidateNetworkBenchOptions(options).code();
  };
  EXPECT_EQ(code({.uri = "u"}), ErrorCode::kOk);
  EXPECT_EQ(code({.uri = "u", .compressors = {}}), ErrorCode::kBadValue);
  EXPECT_EQ(code({.uri = "u", .compressors = {"lz4"}}), ErrorCode::kBadValue);
  EXPECT_EQ(code({.uri = "u", .compressors = {"zstd", "zstd"}}), ErrorCode::kBadValue);
  EXPECT_EQ(code({.uri = "u", .zlib_level = 10}), ErrorCode::kBadValue);
  EXPECT_EQ(code({.uri = "u", .megabytes = 0}), ErrorCode::kBadValue);
  EXPECT_EQ(code({.uri = "u", .batch_size = 0}), ErrorCode::kBadValue);
}

TEST(BulkBenchTableTest, RowsShowRatesSeenCountsAndTimeRelativeToAcknowledgedBulk) {
  BulkBenchResult result;
  result.rounds = {{.round = BulkRound::kAcknowledgedOneByOne,
                    .documents = 1'000,
                    .bytes = 1'000'000,
                    .seconds = 0.5,
                    .seen = 1'000,
                    .note = {}},
                   {.round = BulkRound::kAcknowledgedBulk,
                    .documents = 10'000,
                    .bytes = 10'000'000,
                    .seconds = 1.0,
                    .seen = 10'000,
                    .note = {}},
                   {.round = BulkRound::kUnacknowledgedBulk,
                    .documents = 10'000,
                    .bytes = 10'000'000,
                    .seconds = 0.25,
                    .seen = 9'000,
                    .note = {}},
                   {.round = BulkRound::kUnacknowledgedBulkGle,
                    .documents = 10'000,
                    .bytes = 10'000'000,
                    .seconds = 1.0,
                    .seen = 10'000,
                    .note = "getLastError failed: CommandNotFound"}};
  ResultTable table = BulkBenchTable({.uri = "mongodb://x"}, result);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(std::get<std::string>(At(table, 0, "round")), "acknowledged one-by-one");
  EXPECT_EQ(std::get<std::string>(At(table, 2, "write_concern")), "w:0");
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 1, "documents_per_second")), 10'000.0);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 1, "megabytes_per_second")), 10.0);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 0, "time_per_document_vs_acknowledged_bulk")), 5.0);
  EXPECT_DOUBLE_EQ(std::get<double>(At(table, 2, "time_per_document_vs_acknowledged_bulk")), 0.25);
  EXPECT_EQ(std::get<std::string>(At(table, 1, "all_seen")), "yes");
  EXPECT_EQ(std::get<std::string>(At(table, 2, "all_seen")), "no");
  EXPECT_EQ(std::get<std::int64_t>(At(table, 2, "seen_after")), 9'000);
  EXPECT_EQ(std::get<std::string>(At(table, 3, "note")), "getLastError failed: CommandNotFound");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(At(table, 1, "note")));
}

TEST(BulkBenchTableTest, WithoutAnAcknowledgedBulkRoundThereIsNoRelativeTime) {
  BulkBenchResult result;
  result.rounds = {{.round = BulkRound::kJournaledBulk,
                    .documents = 10,
                    .bytes = 10,
                    .seconds = 1.0,
                    .seen = 10,
                    .note = {}}};
  ResultTable table = BulkBenchTable({.uri = "mongodb://x"}, result);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      At(table, 0, "time_per_document_vs_acknowledged_bulk")));
  EXPECT_EQ(std::get<std::string>(At(table, 0, "write_concern")), "j:true");
}

TEST(BulkBenchOptionsTest, RoundNamesRoundTripAndUnknownNamesAreRefused) {
  for (BulkRound round : AllBulkRounds()) {
    auto parsed = ParseBulkRound(BulkRoundName(round));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed.value(), round);
  }
  EXPECT_EQ(ParseBulkRound("fast").status().code(), ErrorCode::kBadValue);
}

TEST(BulkBenchOptionsTest, RefusesNoDocumentsNoRoundsAndRepeatedRounds) {
  EXPECT_TRUE(ValidateBulkBenchOptions({.uri = "u"}).ok());
  EXPECT_FALSE(ValidateBulkBenchOptions({.uri = "u", .documents = 0}).ok());
  BulkBenchOptions no_rounds{.uri = "u"};
  no_rounds.rounds.clear();
  EXPECT_FALSE(ValidateBulkBenchOptions(no_rounds).ok());
  BulkBenchOptions twice{.uri = "u"};
  twice.rounds = {BulkRound::kAcknowledgedBulk, BulkRound::kAcknowledgedBulk};
  EXPECT_FALSE(ValidateBulkBenchOptions(twice).ok());
}

}  // namespace
}  // namespace quarry::tools::bench
