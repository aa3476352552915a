// Indexed finds against the same finds by collection scan, and point reads against Redis.

#include "bench/clients/process_cpu.h"
#include "bench/clients/verdict.h"
#include "bench/indexes/parts.h"
#include "bench/indexes/point_reads.h"

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

StatusWith<tc::ResultTable> PointReadPart(const BenchSettings& settings, const ListingSet& set) {
  tc::ResultTable table;
  table.benchmark = "index_point_reads";
  table.title = "point reads of random documents: Quarry (libmongoc find) vs Redis GET (hiredis)";
  table.parameters = {{"documents", static_cast<std::int64_t>(set.docs.size())},
                      {"seconds per row", settings.seconds}};
  table.columns = {{"reader", "reader"},
                   {"threads", "threads"},
                   {"reads", "reads"},
                   {"reads/s", "reads_per_second", 0},
                   {"p50 us", "p50_micros", 0},
                   {"p99 us", "p99_micros", 0},
                   {"server CPU us/read", "server_cpu_micros_per_read", 1},
                   {"vs Redis", "ratio_to_redis", 2}};
  for (int threads : {1, 4}) {
    double redis_rate = 0;
    if (settings.redis_port != 0) {
      QUARRY_ASSIGN_OR_RETURN(PointReadResult redis,
                              RedisPointReads(settings.redis_port, set, threads, settings.seconds));
      redis_rate = redis.reads_per_second;
      table.rows.push_back({std::string("Redis GET listing:<listing_id>"),
                            static_cast<std::int64_t>(threads), redis.reads, redis.reads_per_second,
                            redis.p50_micros, redis.p99_micros, tc::Cell(), 1.0});
    }
    for (PointKey key : {PointKey::kPing, PointKey::kId, PointKey::kListingId}) {
      const double cpu_before = ProcessCpuSeconds(settings.server_pid);
      QUARRY_ASSIGN_OR_RETURN(PointReadResult quarry,
                              QuarryPointReads(settings.uri, settings.db, settings.collection, set,
                                               key, threads, settings.seconds));
      const double cpu = cpu_before >= 0 ? ProcessCpuSeconds(settings.server_pid) - cpu_before : -1;
      const std::string label = key == PointKey::kPing ? "Quarry ping (reads nothing)"
                                : key == PointKey::kId ? "Quarry find {_id}"
                                                       : "Quarry find {listing_id} (unique index)";
      const double share = redis_rate > 0 ? quarry.reads_per_second / redis_rate : 0;
      table.rows.push_back(
          {label, static_cast<std::int64_t>(threads), quarry.reads, quarry.reads_per_second,
           quarry.p50_micros, quarry.p99_micros,
           cpu >= 0 ? tc::Cell(cpu * 1e6 / static_cast<double>(quarry.reads)) : tc::Cell(),
           redis_rate > 0 ? tc::Cell(share) : tc::Cell()});
      if (redis_rate > 0 && key != PointKey::kPing) {
        table.notes.push_back("target: " + label + ", " + std::to_string(threads) +
                              " thread(s) >= " + Fixed(kMinShareOfRedis, 2) + " of Redis: " +
                              Fixed(share, 2) + ", " + Verdict(share >= kMinShareOfRedis));
      }
    }
  }
  table.notes.push_back(
      "server CPU: all of quarryd's threads over the row (RocksDB background work included), "
      "per read.");
  return table;
}

}  // namespace quarry::bench
