// Small writes and reads against Redis: insert_one vs SET and find by _id vs GET, one document
// or value per command, and the same read from many clients.
#include <functional>

#include "bench/clients/redis_session.h"
#include "bench/pointops/key_space.h"
#include "bench/pointops/parts.h"
#include "bench/pointops/parts_internal.h"
#include "bench/pointops/quarry_session.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

// Each Quarry row should reach this share of the matching Redis row's ops/s.
constexpr double kMinShareOfRedis = 0.60;
// The many-clients row should keep at least the total of this many clients.
constexpr int kReferenceClients = 4;

std::function<StatusWith<std::unique_ptr<RedisSession>>()> ConnectRedis(
    const PointOpsSettings& settings) {
  return [&settings] { return RedisSession::Connect(settings.redis_port); };
}

// Both stores' clients for one kind of row.
struct RowKind {
  std::string redis_operation;
  std::string quarry_operation;
  ClientFactory redis;
  ClientFactory quarry;
};

RowKind Writes(const PointOpsSettings& settings, const std::string& collection,
               const std::string& redis_prefix, std::size_t bytes, KeySpace& redis_keys,
               KeySpace& quarry_keys) {
  auto redis = [&redis_keys, redis_prefix, bytes](RedisSession& session,
                                                  std::mt19937_64&) -> StatusWith<bool> {
    std::optional<std::size_t> index = redis_keys.NextToWrite();
    if (!index) return false;
    QUARRY_RETURN_IF_ERROR(session.Set(redis_prefix + KeyOf(*index), ValueOf(*index, bytes)));
    return true;
  };
  auto quarry = [&quarry_keys, collection, bytes](QuarrySession& session,
                                                  std::mt19937_64&) -> StatusWith<bool> {
    std::optional<std::size_t> index = quarry_keys.NextToWrite();
    if (!index) return false;
    QUARRY_RETURN_IF_ERROR(session.InsertOne(collection, KeyOf(*index), ValueOf(*index, bytes)));
    return true;
  };
  return {"SET", "insert_one", SessionClients<RedisSession>(ConnectRedis(settings), redis),
          SessionClients<QuarrySession>(QuarryConnector(settings), quarry)};
}

RowKind Reads(const PointOpsSettings& settings, const WrittenKeys& keys) {
  auto redis = [keys](RedisSession& session, std::mt19937_64& random) -> StatusWith<bool> {
    QUARRY_RETURN_IF_ERROR(
        session.Get(keys.redis_prefix + KeyOf(random() % keys.redis_count), keys.value_bytes));
    return true;
  };
  return {"GET", "find {_id}", SessionClients<RedisSession>(ConnectRedis(settings), redis),
          QuarryPointReaders(settings, keys)};
}

tc::ResultTable KeyValueTable(const PointOpsSettings& settings) {
  tc::ResultTable table;
  table.benchmark = "pointops_key_value";
  table.title =
      "one document per command: Quarry (libmongoc, w:1) vs Redis (hiredis), each thread its "
      "own connection";
  table.parameters = {{"seconds per row", settings.seconds},
                      {"max keys per write row", static_cast<std::int64_t>(settings.max_keys)}};
  table.columns = {{"store", "store"},
                   {"operation", "operation"},
                   {"value bytes", "value_bytes"},
                   {"threads", "threads"},
                   {"ops", "ops"},
                   {"ops/s", "ops_per_second", 0},
                   {"p50 us", "p50_micros", 0},
                   {"p99 us", "p99_micros", 0},
                   {"server CPU us/op", "server_cpu_micros_per_op", 1},
                   {"vs Redis", "ratio_to_redis", 2},
                   {"target", "target"}};
  return table;
}

// Runs `kind` at `threads` on Redis (when there is one), then on Quarry; one row each.
Status AddRowPair(const PointOpsSettings& settings, const RowKind& kind, std::size_t bytes,
                  int threads, tc::ResultTable* table) {
  double redis_rate = 0;
  if (settings.redis_port != 0) {
    QUARRY_ASSIGN_OR_RETURN(MeasuredRow redis,
                            MeasureRow(kind.redis, threads, settings.seconds, settings.redis_pid));
    redis_rate = redis.latency.ops_per_second;
    table->rows.push_back({std::string("Redis"), kind.redis_operation,
                           static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(threads),
                           redis.latency.ops, redis.latency.ops_per_second,
                           redis.latency.p50_micros, redis.latency.p99_micros,
                           CpuMicrosPerOp(redis), 1.0, tc::Cell()});
  }
  QUARRY_ASSIGN_OR_RETURN(MeasuredRow quarry,
                          MeasureRow(kind.quarry, threads, settings.seconds, settings.server_pid));
  const double share = redis_rate > 0 ? quarry.latency.ops_per_second / redis_rate : 0;
  table->rows.push_back(
      {std::string("Quarry"), kind.quarry_operation, static_cast<std::int64_t>(bytes),
       static_cast<std::int64_t>(threads), quarry.latency.ops, quarry.latency.ops_per_second,
       quarry.latency.p50_micros, quarry.latency.p99_micros, CpuMicrosPerOp(quarry),
       redis_rate > 0 ? tc::Cell(share) : tc::Cell(),
       redis_rate > 0 ? tc::Cell(Verdict(share >= kMinShareOfRedis)) : tc::Cell()});
  return Status::OK();
}

}  // namespace

StatusWith<tc::ResultTable> KeyValuePart(const PointOpsSettings& settings,
                                         std::vector<WrittenKeys>* written) {
  tc::ResultTable table = KeyValueTable(settings);
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<QuarrySession> admin, QuarryConnector(settings)());
  for (std::size_t bytes : settings.value_bytes) {
    const std::string collection = "kv" + std::to_string(bytes);
    const std::string redis_prefix = "kv" + std::to_string(bytes) + ":";
    QUARRY_RETURN_IF_ERROR(admin->Drop(collection));
    std::size_t redis_end = 0;
    std::size_t quarry_end = 0;
    for (int threads : settings.threads) {
      KeySpace redis_keys(redis_end, settings.max_keys);
      KeySpace quarry_keys(quarry_end, settings.max_keys);
      const RowKind writes =
          Writes(settings, collection, redis_prefix, bytes, redis_keys, quarry_keys);
      QUARRY_RETURN_IF_ERROR(AddRowPair(settings, writes, bytes, threads, &table));
      redis_end = redis_keys.end();
      quarry_end = quarry_keys.end();
    }
    const WrittenKeys keys{collection, bytes, quarry_end, redis_prefix, redis_end};
    const RowKind reads = Reads(settings, keys);
    for (int threads : settings.threads) {
      QUARRY_RETURN_IF_ERROR(AddRowPair(settings, reads, bytes, threads, &table));
    }
    written->push_back(keys);
  }
  table.notes.push_back("target: each Quarry row >= " + Fixed(kMinShareOfRedis, 2) +
                        " of the Redis row above it (ops/s).");
  table.notes.push_back(
      "server CPU: all of the server's threads over the row (RocksDB's background work "
      "included), per op; Redis rows show redis-server's.");
  return table;
}

StatusWith<tc::ResultTable> ManyClientsPart(const PointOpsSettings& settings,
                                            const WrittenKeys& keys) {
  tc::ResultTable table;
  table.benchmark = "pointops_many_clients";
  table.title = "find {_id} (and Redis GET) from many clients, each its own connection";
  table.parameters = {{"value bytes", static_cast<std::int64_t>(keys.value_bytes)},
                      {"documents", static_cast<std::int64_t>(keys.count)},
                      {"seconds per row", settings.seconds}};
  table.columns = {{"store", "store"},
                   {"operation", "operation"},
                   {"clients", "clients"},
                   {"ops", "ops"},
                   {"ops/s", "ops_per_second", 0},
                   {"p50 us", "p50_micros", 0},
                   {"p99 us", "p99_micros", 0},
                   {"server CPU us/op", "server_cpu_micros_per_op", 1},
                   {"vs 4 clients", "ratio_to_4_clients", 2}};
  const RowKind reads = Reads(settings, keys);
  double quarry_reference = 0;
  double redis_reference = 0;
  double share = 0;
  for (int clients : {kReferenceClients, settings.many_clients}) {
    if (settings.redis_port != 0) {
      QUARRY_ASSIGN_OR_RETURN(MeasuredRow redis, MeasureRow(reads.redis, clients, settings.seconds,
                                                            settings.redis_pid));
      if (redis_reference == 0) redis_reference = redis.latency.ops_per_second;
      table.rows.push_back({std::string("Redis"), reads.redis_operation,
                            static_cast<std::int64_t>(clients), redis.latency.ops,
                            redis.latency.ops_per_second, redis.latency.p50_micros,
                            redis.latency.p99_micros, CpuMicrosPerOp(redis),
                            redis.latency.ops_per_second / redis_reference});
    }
    QUARRY_ASSIGN_OR_RETURN(MeasuredRow quarry, MeasureRow(reads.quarry, clients, settings.seconds,
                                                           settings.server_pid));
    if (quarry_reference == 0) quarry_reference = quarry.latency.ops_per_second;
    share = quarry.latency.ops_per_second / quarry_reference;
    table.rows.push_back({std::string("Quarry"), reads.quarry_operation,
                          static_cast<std::int64_t>(clients), quarry.latency.ops,
                          quarry.latency.ops_per_second, quarry.latency.p50_micros,
                          quarry.latency.p99_micros, CpuMicrosPerOp(quarry), share});
  }
  table.notes.push_back("target: Quarry's total ops/s with " +
                        std::to_string(settings.many_clients) + " clients >= with " +
                        std::to_string(kReferenceClients) + " (no collapse): " + Fixed(share, 2) +
                        ", " + Verdict(share >= 1.0));
  table.notes.push_back(
      "the clients run on the same machine as the servers: Redis's rows show what the client "
      "threads alone cost.");
  return table;
}

}  // namespace quarry::bench
