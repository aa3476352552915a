// Indexed finds against the same finds by collection scan, and point reads against Redis.

#include <algorithm>
#include <string>
#include <vector>

#include "bench/clients/process_cpu.h"
#include "bench/clients/verdict.h"
#include "bench/indexes/parts.h"
#include "bench/indexes/point_reads.h"
#include "bench/indexes/rounds.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

// find(range).sort(indexed).limit(10) should stop after the first 10 index entries (issue 10).
constexpr std::int64_t kMaxExaminedForLimit = 10;
// Point reads should reach this share of Redis GETs (issue 10).
constexpr double kMinShareOfRedis = 0.60;

struct NamedFind {
  std::string label;
  FindSpec find;
};

tc::ResultTable FindTable(std::string benchmark, std::string title) {
  tc::ResultTable table;
  table.benchmark = std::move(benchmark);
  table.title = std::move(title);
  table.columns = {{"query", "query"},
                   {"plan", "plan"},
                   {"returned", "returned"},
                   {"keys examined", "keys_examined"},
                   {"docs examined", "docs_examined"},
                   {"median ms", "median_ms", 2},
                   {"scan / this", "speedup_vs_scan", 1}};
  return table;
}

// Explains and times `indexed`, then the same find with hint {$natural: 1}; two rows.
StatusWith<ExplainStats> AddIndexedAndScan(tc::MongoClient& client, const BenchSettings& settings,
                                           NamedFind indexed, tc::ResultTable* table) {
  tc::CollectionPtr handle = client.Collection(settings.db, settings.collection);
  FindSpec scan{.filter = tc::BsonPtr(bson_copy(indexed.find.filter.get())),
                .sort = tc::BsonPtr(bson_copy(indexed.find.sort.get())),
                .limit = indexed.find.limit,
                .collection_scan = true};
  QUARRY_ASSIGN_OR_RETURN(ExplainStats indexed_stats,
                          ExplainFind(client, settings.db, settings.collection, indexed.find));
  QUARRY_ASSIGN_OR_RETURN(FindTiming indexed_timing,
                          TimeFind(handle.get(), indexed.find, settings.repeat));
  QUARRY_ASSIGN_OR_RETURN(ExplainStats scan_stats,
                          ExplainFind(client, settings.db, settings.collection, scan));
  // Scans of a large collection take seconds each, so fewer runs.
  QUARRY_ASSIGN_OR_RETURN(FindTiming scan_timing,
                          TimeFind(handle.get(), scan, std::min(settings.repeat, 3)));
  const double scan_ms = scan_timing.median_seconds * 1e3;
  const double indexed_ms = indexed_timing.median_seconds * 1e3;
  table->rows.push_back({indexed.label, indexed_stats.plan, indexed_stats.returned,
                         indexed_stats.keys_examined, indexed_stats.docs_examined, indexed_ms,
                         scan_ms / indexed_ms});
  table->rows.push_back({indexed.label + " by scan", scan_stats.plan, scan_stats.returned,
                         scan_stats.keys_examined, scan_stats.docs_examined, scan_ms, 1.0});
  return indexed_stats;
}

NamedFind Equality(const char* field, const std::string& value) {
  bson_t* filter = bson_new();
  BSON_APPEND_UTF8(filter, field, value.c_str());
  NamedFind named;
  named.label = std::string(field) + " = \"" + value + "\"";
  named.find.filter = tc::BsonPtr(filter);
  return named;
}

}  // namespace

StatusWith<tc::ResultTable> EqualityPart(tc::MongoClient& client, const BenchSettings& settings,
                                         const ListingSet& set) {
  tc::ResultTable table = FindTable(
      "index_equality", "equality find on an indexed field vs the same find by collection scan");
  table.parameters = {{"documents", static_cast<std::int64_t>(set.docs.size())},
                      {"runs per find", static_cast<std::int64_t>(settings.repeat)}};
  // A near-unique value and one of the ~15 markets: a selective and a broad equality.
  const std::size_t n = set.docs.size();
  std::vector<NamedFind> finds;
  finds.push_back(Equality("host.host_id", HostIdOf(set, n / 2)));
  finds.push_back(Equality("address.market", MarketOf(set, n / 3)));
  for (NamedFind& find : finds) {
    QUARRY_ASSIGN_OR_RETURN(ExplainStats stats,
                            AddIndexedAndScan(client, settings, std::move(find), &table));
    table.notes.push_back(std::get<std::string>(table.rows[table.rows.size() - 2][0]) +
                          ": indexed find examines only its matches (docs examined = returned): " +
                          Verdict(stats.docs_examined == stats.returned &&
                                  stats.keys_examined <= stats.returned + 1));
  }
  table.notes.push_back("median ms: the find through the driver, every result read.");
  return table;
}

StatusWith<tc::ResultTable> RangeSortPart(tc::MongoClient& client, const BenchSettings& settings) {
  tc::ResultTable table = FindTable(
      "index_range_sort", "find(range).sort(indexed).limit(10) vs the same by collection scan");
  bson_t* filter = bson_new();
  bson_t range;
  BSON_APPEND_DOCUMENT_BEGIN(filter, "price", &range);
  BSON_APPEND_DOUBLE(&range, "$gte", 100);
  BSON_APPEND_DOUBLE(&range, "$lt", 200);
  bson_append_document_end(filter, &range);
  bson_t* sort = bson_new();
  BSON_APPEND_INT32(sort, "price", 1);
  NamedFind find;
  find.label = "price in [100, 200) sort price limit 10";
  find.find.filter = tc::BsonPtr(filter);
  find.find.sort = tc::BsonPtr(sort);
  find.find.limit = kMaxExaminedForLimit;
  QUARRY_ASSIGN_OR_RETURN(ExplainStats stats,
                          AddIndexedAndScan(client, settings, std::move(find), &table));
  table.parameters = {{"runs per find", static_cast<std::int64_t>(settings.repeat)}};
  table.notes.push_back("target: at most 10 index keys and 10 documents examined: " +
                        Verdict(stats.keys_examined <= kMaxExaminedForLimit &&
                                stats.docs_examined <= kMaxExaminedForLimit));
  return table;
}

namespace {

// One reader's rows of one thread count: a result per round.
struct ReaderRounds {
  std::string label;
  std::vector<PointReadResult> results;
  std::vector<double> cpu_micros;  // per read; -1: unknown
  std::vector<double> shares;      // of the same round's Redis rate; empty without Redis
};

const char* LabelOf(PointKey key) {
  return key == PointKey::kPing ? "Quarry ping (reads nothing)"
         : key == PointKey::kId ? "Quarry find {_id}"
                                : "Quarry find {listing_id} (unique index)";
}

}  // namespace

StatusWith<tc::ResultTable> PointReadPart(const BenchSettings& settings, const ListingSet& set) {
  tc::ResultTable table;
  table.benchmark = "index_point_reads";
  table.title = "point reads of random documents: Quarry (libmongoc find) vs Redis GET (hiredis)";
  table.parameters = {{"documents", static_cast<std::int64_t>(set.docs.size())},
                      {"seconds per row", settings.seconds},
                      {"rounds", static_cast<std::int64_t>(settings.read_rounds)}};
  table.columns = {{"reader", "reader"},
                   {"threads", "threads"},
                   {"reads", "reads"},
                   {"reads/s", "reads_per_second", 0},
                   {"p50 us", "p50_micros", 0},
                   {"p99 us", "p99_micros", 0},
                   {"server CPU us/read", "server_cpu_micros_per_read", 1},
                   {"vs Redis", "ratio_to_redis", 2},
                   {"vs Redis, rounds", "ratio_to_redis_range"}};
  const std::vector<PointKey> keys = {PointKey::kPing, PointKey::kId, PointKey::kListingId};
  for (int threads : {1, 4}) {
    // Each round runs every reader once, Redis first, so a ratio compares rows that ran a few
    // seconds apart; the machine's speed drifts over a longer span.
    ReaderRounds redis;
    redis.label = "Redis GET listing:<listing_id>";
    std::vector<ReaderRounds> quarry;
    for (PointKey key : keys) quarry.emplace_back().label = LabelOf(key);
    for (int round = 0; round < settings.read_rounds; ++round) {
      double redis_rate = 0;
      if (settings.redis_port != 0) {
        QUARRY_ASSIGN_OR_RETURN(PointReadResult result, RedisPointReads(settings.redis_port, set,
                                                                        threads, settings.seconds));
        redis_rate = result.reads_per_second;
        redis.results.push_back(result);
      }
      for (std::size_t k = 0; k < keys.size(); ++k) {
        const double cpu_before = ProcessCpuSeconds(settings.server_pid);
        QUARRY_ASSIGN_OR_RETURN(PointReadResult result,
                                QuarryPointReads(settings.uri, settings.db, settings.collection,
                                                 set, keys[k], threads, settings.seconds));
        const double cpu =
            cpu_before >= 0 ? ProcessCpuSeconds(settings.server_pid) - cpu_before : -1;
        quarry[k].results.push_back(result);
        quarry[k].cpu_micros.push_back(cpu >= 0 ? cpu * 1e6 / static_cast<double>(result.reads)
                                                : -1);
        if (redis_rate > 0) quarry[k].shares.push_back(result.reads_per_second / redis_rate);
      }
    }
    if (!redis.results.empty()) {
      std::vector<double> rates;
      for (const PointReadResult& result : redis.results) rates.push_back(result.reads_per_second);
      const PointReadResult& median = redis.results[MedianRound(rates)];
      table.rows.push_back({redis.label, static_cast<std::int64_t>(threads), median.reads,
                            median.reads_per_second, median.p50_micros, median.p99_micros,
                            tc::Cell(), 1.0, std::string("-")});
    }
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const ReaderRounds& reader = quarry[k];
      std::vector<double> rates;
      for (const PointReadResult& result : reader.results) rates.push_back(result.reads_per_second);
      // The round of the median share (of the median rate without Redis) stands for the reader.
      const std::size_t round = MedianRound(reader.shares.empty() ? rates : reader.shares);
      const PointReadResult& median = reader.results[round];
      const bool shared = !reader.shares.empty();
      table.rows.push_back(
          {reader.label, static_cast<std::int64_t>(threads), median.reads, median.reads_per_second,
           median.p50_micros, median.p99_micros,
           reader.cpu_micros[round] >= 0 ? tc::Cell(reader.cpu_micros[round]) : tc::Cell(),
           shared ? tc::Cell(reader.shares[round]) : tc::Cell(), RangeText(reader.shares)});
      if (shared && keys[k] != PointKey::kPing) {
        const double share = reader.shares[round];
        table.notes.push_back("target: " + reader.label + ", " + std::to_string(threads) +
                              " thread(s) >= " + Fixed(kMinShareOfRedis, 2) +
                              " of Redis (median of " + std::to_string(reader.shares.size()) +
                              " rounds): " + Fixed(share, 2) + ", " +
                              Verdict(share >= kMinShareOfRedis));
      }
    }
  }
  table.notes.push_back(
      "rounds: every reader runs once per round, Redis first; each row is the reader's round "
      "with the median share of that round's Redis rate, and 'vs Redis, rounds' the range over "
      "all rounds. Server CPU: all of quarryd's threads over the row (RocksDB background work "
      "included), per read.");
  return table;
}

}  // namespace quarry::bench
