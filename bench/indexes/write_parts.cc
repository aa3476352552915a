// Insert rounds with 0-5 secondary indexes, and index builds against a collection scan.
#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench/clients/process_cpu.h"
#include "bench/clients/verdict.h"
#include "bench/indexes/parts.h"
#include "bench/indexes/rounds.h"
#include "tools/bench/bulk_insert.h"

namespace quarry::bench {
namespace {

namespace tb = tools::bench;
namespace tc = tools::client;

// Builds are judged against one full pass over the collection (issue 10).
constexpr double kMaxBuildVsScan = 3.0;
// How long a build round waits for the server's background work to end before its scan.
constexpr double kMaxQuietWaitSeconds = 60;
// With 3 secondary indexes, at least this share of the throughput with none (issue 10).
constexpr double kMinInsertShareWithThree = 0.60;

std::string KeyText(const IndexSpec& index) {
  std::string text = "{";
  for (const auto& [field, direction] : index.key) {
    if (text.size() > 1) text += ", ";
    text += field + ": " + std::to_string(direction);
  }
  return text + "}" + (index.unique ? " unique" : "");
}

tc::Cell CpuCell(double seconds) { return seconds >= 0 ? tc::Cell(seconds) : tc::Cell(); }

}  // namespace

std::vector<IndexSpec> SecondaryIndexes(std::size_t count) {
  // Single-valued fields a listings page filters and sorts on; the unique one is what the
  // point reads use. Multikey fields (amenities) are left out so each index adds one key per
  // document.
  std::vector<IndexSpec> all = {
      {.name = "price_1", .key = {{"price", 1}}},
      {.name = "address.market_1", .key = {{"address.market", 1}}},
      {.name = "host.host_id_1", .key = {{"host.host_id", 1}}},
      {.name = "listing_id_1", .key = {{"listing_id", 1}}, .unique = true},
      {.name = "room_type_1_accommodates_1", .key = {{"room_type", 1}, {"accommodates", 1}}},
  };
  all.resize(std::min(count, all.size()));
  return all;
}

StatusWith<InsertRound> InsertWithIndexes(tc::MongoClient& client, const BenchSettings& settings,
                                          const ListingSet& set, const std::string& collection,
                                          std::size_t indexes, bool keep) {
  tc::CollectionPtr handle = client.Collection(settings.db, collection);
  QUARRY_RETURN_IF_ERROR(tb::DropCollection(handle.get()));
  for (const IndexSpec& index : SecondaryIndexes(indexes)) {
    StatusWith<double> built = BuildIndex(client, settings.db, collection, index);
    QUARRY_RETURN_IF_ERROR(built);
  }
  tc::NoProgress progress;
  const double cpu_before = ProcessCpuSeconds(settings.server_pid);
  auto start = std::chrono::steady_clock::now();
  QUARRY_RETURN_IF_ERROR(tb::InsertInBatches(handle.get(), set.docs, settings.batch,
                                             {.mode = tb::WriteMode::kAcknowledged}, progress));
  InsertRound round{
      .indexes = indexes,
      .load = keep,
      .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  if (cpu_before >= 0)
    round.server_cpu_seconds = ProcessCpuSeconds(settings.server_pid) - cpu_before;
  QUARRY_ASSIGN_OR_RETURN(std::int64_t count, tb::CountDocuments(handle.get()));
  if (count != static_cast<std::int64_t>(set.docs.size())) {
    return Status(ErrorCode::kOperationFailed, collection + " holds " + std::to_string(count) +
                                                   " of " + std::to_string(set.docs.size()) +
                                                   " documents");
  }
  if (!keep) QUARRY_RETURN_IF_ERROR(tb::DropCollection(handle.get()));
  return round;
}

tc::ResultTable InsertTable(const BenchSettings& settings, const ListingSet& set,
                            const std::vector<InsertRound>& rounds) {
  tc::ResultTable table;
  table.benchmark = "index_insert";
  table.title = "insert (w:1 bulk) with N secondary indexes vs none";
  table.parameters = {{"documents", static_cast<std::int64_t>(set.docs.size())},
                      {"BSON bytes", static_cast<std::int64_t>(set.docs.bytes())},
                      {"batch", static_cast<std::int64_t>(settings.batch)},
                      {"repetitions", static_cast<std::int64_t>(settings.insert_repeat)}};
  table.columns = {{"round", "round"},
                   {"indexes", "indexes"},
                   {"index keys", "index_keys"},
                   {"seconds", "seconds", 2},
                   {"documents/s", "documents_per_second", 0},
                   {"MB/s", "megabytes_per_second", 1},
                   {"server CPU s", "server_cpu_seconds", 1},
                   {"vs 0 indexes", "ratio_to_none", 2},
                   {"vs 0 indexes, repetitions", "ratio_to_none_range"}};
  const auto rate = [&set](const InsertRound& round) {
    return static_cast<double>(set.docs.size()) / round.seconds;
  };
  // The baseline of each repetition is its round with no index, into the same empty collection
  // the indexed rounds use, in a database that already holds the queried one; the load is
  // shown, not compared.
  std::map<int, double> none_rate;
  for (const InsertRound& round : rounds) {
    if (round.indexes == 0 && !round.load) none_rate[round.repetition] = rate(round);
  }
  // Index counts in the order their rounds ran, each with its rounds over the repetitions.
  std::vector<std::pair<std::size_t, std::vector<const InsertRound*>>> by_count;
  for (const InsertRound& round : rounds) {
    if (round.load) continue;
    auto same = std::find_if(by_count.begin(), by_count.end(),
                             [&round](const auto& entry) { return entry.first == round.indexes; });
    if (same == by_count.end()) same = by_count.insert(by_count.end(), {round.indexes, {}});
    same->second.push_back(&round);
  }
  auto add_row = [&](const InsertRound& round, tc::Cell ratio, std::string range) {
    std::string keys;
    for (const IndexSpec& index : SecondaryIndexes(round.indexes)) {
      keys += (keys.empty() ? "" : " ") + KeyText(index);
    }
    table.rows.push_back({round.load ? "load" : "insert", static_cast<std::int64_t>(round.indexes),
                          keys.empty() ? "-" : keys, round.seconds, rate(round),
                          static_cast<double>(set.docs.bytes()) / 1e6 / round.seconds,
                          CpuCell(round.server_cpu_seconds), std::move(ratio), std::move(range)});
  };
  for (const InsertRound& round : rounds) {
    if (round.load) add_row(round, tc::Cell(), "-");
  }
  for (const auto& [indexes, of_count] : by_count) {
    // Each round against the round with none of its own repetition; without those, by rate.
    std::vector<double> ratios;
    std::vector<double> rates;
    for (const InsertRound* round : of_count) {
      const auto none = none_rate.find(round->repetition);
      if (none != none_rate.end()) ratios.push_back(rate(*round) / none->second);
      rates.push_back(rate(*round));
    }
    const bool compared = ratios.size() == of_count.size();
    const std::size_t shown = MedianRound(compared ? ratios : rates);
    add_row(*of_count[shown], compared ? tc::Cell(ratios[shown]) : tc::Cell(),
            compared ? RangeText(ratios) : "-");
    if (indexes == 3 && compared) {
      table.notes.push_back("target: 3 indexes >= " + Fixed(kMinInsertShareWithThree, 2) +
                            " of the rate with none (median of " + std::to_string(ratios.size()) +
                            " repetitions): " + Fixed(ratios[shown], 2) + ", " +
                            Verdict(ratios[shown] >= kMinInsertShareWithThree));
    }
  }
  table.notes.push_back(
      "load: the queried collection, into a fresh database. insert: each round into an empty "
      "collection beside it, dropped afterwards; the rounds (0, 1, 3, 5 indexes) run in that order "
      "in each repetition, and each ratio is to the round with no index of the same repetition; "
      "each row is the repetition with the median ratio, and the range is over all repetitions. "
      "Server CPU counts all of its threads (RocksDB flushes and compactions included) during "
      "the round.");
  return table;
}

StatusWith<tc::ResultTable> BuildPart(tc::MongoClient& client, const BenchSettings& settings,
                                      const ListingSet& set) {
  tc::CollectionPtr handle = client.Collection(settings.db, settings.collection);
  // A filter no document matches makes the server read every record and send nothing back.
  FindSpec scan;
  bson_t* filter = bson_new();
  BSON_APPEND_BOOL(filter, "no_such_field", true);
  scan.filter = tc::BsonPtr(filter);
  scan.collection_scan = true;

  tc::ResultTable table;
  table.benchmark = "index_build";
  table.title = "createIndexes on a loaded collection vs a collection scan just before it";
  table.parameters = {{"documents", static_cast<std::int64_t>(set.docs.size())},
                      {"BSON bytes", static_cast<std::int64_t>(set.docs.bytes())},
                      {"rounds", static_cast<std::int64_t>(settings.build_rounds)}};
  table.columns = {{"index", "index"},
                   {"scan s", "scan_seconds", 2},
                   {"build s", "build_seconds", 2},
                   {"scan server CPU s", "scan_server_cpu_seconds", 2},
                   {"build server CPU s", "build_server_cpu_seconds", 2},
                   {"build / scan", "ratio_to_scan", 2},
                   {"build / scan, rounds", "ratio_to_scan_range"},
                   {"target <= 3x", "target"}};
  for (const IndexSpec& index : SecondaryIndexes(4)) {
    // Each round scans, then builds; every round but the last drops the index again. The round
    // with the median ratio stands for the index.
    struct BuildRound {
      double scan_seconds, build_seconds, scan_cpu, build_cpu, ratio;
    };
    std::vector<BuildRound> rounds;
    for (int round = 0; round < settings.build_rounds; ++round) {
      if (round > 0)
        QUARRY_RETURN_IF_ERROR(DropIndex(client, settings.db, settings.collection, index));
      // Each round starts from a quiet server, not beside what an earlier part left running
      // (the load's flushes and compactions).
      WaitUntilIdle(settings.server_pid, kMaxQuietWaitSeconds);
      const double cpu_start = ProcessCpuSeconds(settings.server_pid);
      QUARRY_ASSIGN_OR_RETURN(FindTiming scan_timing, TimeFind(handle.get(), scan, 1));
      const double cpu_scanned = ProcessCpuSeconds(settings.server_pid);
      QUARRY_ASSIGN_OR_RETURN(double seconds,
                              BuildIndex(client, settings.db, settings.collection, index));
      const double cpu_built = ProcessCpuSeconds(settings.server_pid);
      rounds.push_back(
          {scan_timing.median_seconds, seconds, cpu_start >= 0 ? cpu_scanned - cpu_start : -1,
           cpu_start >= 0 ? cpu_built - cpu_scanned : -1, seconds / scan_timing.median_seconds});
    }
    std::vector<double> ratios;
    for (const BuildRound& round : rounds) ratios.push_back(round.ratio);
    const BuildRound& median = rounds[MedianRound(ratios)];
    table.rows.push_back({KeyText(index), median.scan_seconds, median.build_seconds,
                          CpuCell(median.scan_cpu), CpuCell(median.build_cpu), median.ratio,
                          RangeText(ratios), Verdict(median.ratio <= kMaxBuildVsScan)});
  }
  table.notes.push_back(
      "scan: find({no_such_field: true}) with hint {$natural: 1}, which reads every record and "
      "returns none. Each round waits (up to " +
      std::to_string(static_cast<int>(kMaxQuietWaitSeconds)) +
      " s) until the server has used under " + Fixed(kIdleCoreShare * 100, 0) + "% of a core for " +
      Fixed(kIdleWindowSeconds, 1) +
      " s, then scans, then builds (and drops the index again unless it is the "
      "last round); each row is the round with the median ratio, and the range is over all "
      "rounds.");
  return table;
}

}  // namespace quarry::bench
