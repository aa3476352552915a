#include "tools/bench/large_docs_bench.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "tools/bench/client_codecs.h"
#include "tools/bench/large_document.h"
#include "tools/bench/random_internal.h"
#include "tools/bench/redis_process.h"
#include "tools/client/mongo_client.h"
#include "tools/client/process_cpu.h"
#include "tools/client/redis_session.h"

namespace quarry::tools::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kTargetRatio = 1.5;  // Quarry + zstd vs Redis + brotli-1, 10 MB put+get
constexpr const char* kKey = "large-doc";

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double Milliseconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// One row's measurements over the repeats.
struct Timing {
  std::vector<double> upload_ms;
  std::vector<double> download_ms;
  double client_cpu = 0;  // seconds, all repeats
  double server_cpu = 0;
  std::optional<std::int64_t> stored;  // Redis: the value's bytes
  std::int64_t wire_up = 0;            // bytes, all repeats
  std::int64_t wire_down = 0;
};

std::vector<client::Cell> Row(double size_mb, const char* system, std::string codec,
                              const Timing& timing, int repeat, bool server_cpu_known) {
  const double upload = Median(timing.upload_ms);
  const double download = Median(timing.download_ms);
  std::vector<double> sums;
  for (std::size_t i = 0; i < timing.upload_ms.size(); ++i)
    sums.push_back(timing.upload_ms[i] + timing.download_ms[i]);
  return {size_mb,
          std::string(system),
          std::move(codec),
          upload,
          download,
          Median(sums),
          timing.stored.has_value() ? client::Cell{static_cast<double>(*timing.stored) / 1e3}
                                    : client::Cell{},
          static_cast<double>(timing.wire_up) / repeat / 1e3,
          static_cast<double>(timing.wire_down) / repeat / 1e3,
          timing.client_cpu * 1e3 / repeat,
          server_cpu_known ? client::Cell{timing.server_cpu * 1e3 / repeat} : client::Cell{}};
}

StatusWith<Timing> MeasureRedis(client::RedisSession& redis, int redis_pid, ClientCodec codec,
                                const std::string& json, const bson_t& bson, int repeat) {
  Timing timing;
  QUARRY_ASSIGN_OR_RETURN(std::int64_t in_before, redis.InfoStat("total_net_input_bytes"));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t out_before, redis.InfoStat("total_net_output_bytes"));
  const double server_before = client::ProcessCpuSeconds(redis_pid);
  for (int r = 0; r < repeat; ++r) {
    const double cpu_start = ThreadCpuSeconds();
    const auto start = Clock::now();
    QUARRY_ASSIGN_OR_RETURN(std::string stored, EncodeForClient(codec, json, bson));
    QUARRY_RETURN_IF_ERROR(redis.Set(kKey, stored));
    const auto stored_at = Clock::now();
    QUARRY_ASSIGN_OR_RETURN(std::string value, redis.GetValue(kKey));
    QUARRY_ASSIGN_OR_RETURN(std::size_t decoded, DecodeForClient(codec, value));
    const auto done = Clock::now();
    timing.client_cpu += ThreadCpuSeconds() - cpu_start;
    if (decoded == 0) return Status(ErrorCode::kOperationFailed, "a document decoded to nothing");
    timing.upload_ms.push_back(Milliseconds(start, stored_at));
    timing.download_ms.push_back(Milliseconds(stored_at, done));
    timing.stored = static_cast<std::int64_t>(stored.size());
  }
  timing.server_cpu = client::ProcessCpuSeconds(redis_pid) - server_before;
  QUARRY_ASSIGN_OR_RETURN(std::int64_t in_after, redis.InfoStat("total_net_input_bytes"));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t out_after, redis.InfoStat("total_net_output_bytes"));
  timing.wire_up = in_after - in_before;
  timing.wire_down = out_after - out_before;
  return timing;
}

StatusWith<Timing> MeasureQuarry(const LargeDocsOptions& options, const std::string& compressor,
                                 const bson_t& bson, int repeat) {
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<client::MongoClient> connection,
      client::MongoClient::Connect(
          {.uri = options.uri, .compressor = compressor, .app_name = "quarry-bench-large-docs"}));
  client::CollectionPtr collection = connection->Collection(options.database, options.collection);
  bson_error_t error;
  mongoc_collection_drop_with_opts(collection.get(), nullptr, &error);  // absent is fine
  Timing timing;
  QUARRY_ASSIGN_OR_RETURN(client::NetworkCounters before, connection->ReadNetworkCounters());
  const double server_before = client::ProcessCpuSeconds(options.server_pid);
  bson_t* insert_opts = BCON_NEW("validate", BCON_BOOL(false));
  bson_t* filter = BCON_NEW("_id", BCON_UTF8("doc"));
  bson_t* find_opts = BCON_NEW("limit", BCON_INT64(1));
  Status status = Status::OK();
  for (int r = 0; r < repeat && status.ok(); ++r) {
    const double cpu_start = ThreadCpuSeconds();
    const auto start = Clock::now();
    if (!mongoc_collection_insert_one(collection.get(), &bson, insert_opts, nullptr, &error)) {
      status = client::DriverError(error, "insert");
      break;
    }
    const auto stored_at = Clock::now();
    mongoc_cursor_t* cursor =
        mongoc_collection_find_with_opts(collection.get(), filter, find_opts, nullptr);
    const bson_t* found = nullptr;
    const bool got = mongoc_cursor_next(cursor, &found);
    const auto done = Clock::now();
    timing.client_cpu += ThreadCpuSeconds() - cpu_start;
    const bool whole = got && found->len == bson.len &&
                       std::memcmp(bson_get_data(found), bson_get_data(&bson), bson.len) == 0;
    mongoc_cursor_destroy(cursor);
    if (!whole) {
      status = Status(ErrorCode::kOperationFailed, "the document did not come back whole");
      break;
    }
    timing.upload_ms.push_back(Milliseconds(start, stored_at));
    timing.download_ms.push_back(Milliseconds(stored_at, done));
    if (!mongoc_collection_delete_one(collection.get(), filter, nullptr, nullptr, &error)) {
      status = client::DriverError(error, "delete");
    }
  }
  timing.server_cpu = client::ProcessCpuSeconds(options.server_pid) - server_before;
  if (status.ok()) {
    StatusWith<client::NetworkCounters> after = connection->ReadNetworkCounters();
    if (after.ok()) {
      const client::NetworkCounters moved = after.value() - before;
      timing.wire_up = moved.physical_bytes_in;
      timing.wire_down = moved.physical_bytes_out;
    }
    status = after.status();
  }
  bson_destroy(insert_opts);
  bson_destroy(filter);
  bson_destroy(find_opts);
  QUARRY_RETURN_IF_ERROR(status);
  mongoc_collection_drop_with_opts(collection.get(), nullptr, &error);
  return timing;
}

// `megabytes` of seeded random bytes: what GridFS moves unchanged (nothing to compress).
std::string RandomBytes(double megabytes, std::uint64_t seed) {
  std::string bytes(static_cast<std::size_t>(megabytes * 1e6), '\0');
  SeededRandom random(seed);
  for (std::size_t i = 0; i + 8 <= bytes.size(); i += 8) {
    const std::uint64_t x = random.Next();
    std::memcpy(bytes.data() + i, &x, 8);
  }
  return bytes;
}

// Uploads `bytes` through libmongoc's GridFS bucket and downloads them again, `repeat` times.
StatusWith<Timing> MeasureGridFs(const LargeDocsOptions& options, const std::string& bytes,
                                 int repeat) {
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<client::MongoClient> connection,
      client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-bench-large-docs"}));
  mongoc_database_t* database =
      mongoc_client_get_database(connection->get(), options.database.c_str());
  bson_error_t error;
  mongoc_gridfs_bucket_t* bucket = mongoc_gridfs_bucket_new(database, nullptr, nullptr, &error);
  if (bucket == nullptr) {
    mongoc_database_destroy(database);
    return client::DriverError(error, "GridFS bucket");
  }
  Timing timing;
  QUARRY_ASSIGN_OR_RETURN(client::NetworkCounters before, connection->ReadNetworkCounters());
  const double server_before = client::ProcessCpuSeconds(options.server_pid);
  constexpr std::size_t kPiece = 1 << 20;
  std::string read_back(bytes.size(), '\0');
  Status status = Status::OK();
  for (int r = 0; r < repeat && status.ok(); ++r) {
    const double cpu_start = ThreadCpuSeconds();
    const auto start = Clock::now();
    bson_value_t file_id;
    mongoc_stream_t* upload = mongoc_gridfs_bucket_open_upload_stream(
        bucket, "large-docs-bench.bin", nullptr, &file_id, &error);
    if (upload == nullptr) {
      status = client::DriverError(error, "GridFS upload");
      break;
    }
    for (std::size_t at = 0; at < bytes.size() && status.ok(); at += kPiece) {
      mongoc_iovec_t piece;
      piece.iov_base = const_cast<char*>(bytes.data() + at);
      piece.iov_len = std::min(kPiece, bytes.size() - at);
      if (mongoc_stream_writev(upload, &piece, 1, 0) != static_cast<ssize_t>(piece.iov_len)) {
        mongoc_gridfs_bucket_stream_error(upload, &error);
        status = client::DriverError(error, "GridFS upload");
      }
    }
    if (status.ok() && mongoc_stream_close(upload) != 0) {
      mongoc_gridfs_bucket_stream_error(upload, &error);
      status = client::DriverError(error, "GridFS upload");
    }
    mongoc_stream_destroy(upload);
    const auto stored_at = Clock::now();
    std::size_t got = 0;
    if (status.ok()) {
      mongoc_stream_t* download =
          mongoc_gridfs_bucket_open_download_stream(bucket, &file_id, &error);
      if (download == nullptr) {
        status = client::DriverError(error, "GridFS download");
      } else {
        ssize_t n = 0;
        while (got < read_back.size() &&
               (n = mongoc_stream_read(download, read_back.data() + got,
                                       std::min(kPiece, read_back.size() - got), 1, 0)) > 0) {
          got += static_cast<std::size_t>(n);
        }
        mongoc_stream_destroy(download);
      }
    }
    const auto done = Clock::now();
    timing.client_cpu += ThreadCpuSeconds() - cpu_start;
    if (status.ok() && (got != bytes.size() || read_back != bytes)) {
      status = Status(ErrorCode::kOperationFailed, "the GridFS file did not come back whole");
    }
    if (!mongoc_gridfs_bucket_delete_by_id(bucket, &file_id, &error) && status.ok()) {
      status = client::DriverError(error, "GridFS delete");
    }
    bson_value_destroy(&file_id);
    timing.upload_ms.push_back(Milliseconds(start, stored_at));
    timing.download_ms.push_back(Milliseconds(stored_at, done));
  }
  mongoc_gridfs_bucket_destroy(bucket);
  mongoc_database_destroy(database);
  QUARRY_RETURN_IF_ERROR(status);
  timing.server_cpu = client::ProcessCpuSeconds(options.server_pid) - server_before;
  QUARRY_ASSIGN_OR_RETURN(client::NetworkCounters after, connection->ReadNetworkCounters());
  const client::NetworkCounters moved = after - before;
  timing.wire_up = moved.physical_bytes_in;
  timing.wire_down = moved.physical_bytes_out;
  return timing;
}

}  // namespace

Status ValidateLargeDocsOptions(const LargeDocsOptions& options) {
  if (options.redis_pid != 0 && options.redis_address.empty()) {
    return Status(ErrorCode::kBadValue, "--redis-pid is for a Redis given with --redis");
  }
  if (!options.redis_address.empty()) {
    const std::size_t colon = options.redis_address.rfind(':');
    if (colon == std::string::npos || colon == 0 ||
        std::atoi(options.redis_address.c_str() + colon + 1) <= 0) {
      return Status(ErrorCode::kBadValue,
                    "--redis takes HOST:PORT, not '" + options.redis_address + "'");
    }
  }
  if (options.gridfs_mb < 0) return Status(ErrorCode::kBadValue, "--gridfs-mb cannot be negative");
  if (options.sizes_mb.empty() || options.repeat < 1) {
    return Status(ErrorCode::kBadValue, "--sizes needs at least one size and --repeat at least 1");
  }
  for (double size : options.sizes_mb) {
    if (size <= 0 || size > 15)
      return Status(ErrorCode::kBadValue, "sizes are MB above 0 and at most 15 (BSON's limit)");
  }
  for (const std::string& compressor : options.compressors) {
    if (!client::IsKnownCompressor(compressor))
      return Status(ErrorCode::kBadValue, "unknown compressor " + compressor);
  }
  return Status::OK();
}

StatusWith<client::ResultTable> RunLargeDocsBench(const LargeDocsOptions& options,
                                                  client::ProgressSink& progress) {
  QUARRY_RETURN_IF_ERROR(ValidateLargeDocsOptions(options));
  std::unique_ptr<RedisProcess> redis_process;
  std::string redis_host = "127.0.0.1";
  int redis_port = 0;
  int redis_pid = options.redis_pid;
  if (options.redis_address.empty()) {
    QUARRY_ASSIGN_OR_RETURN(redis_process, RedisProcess::Start(options.redis_server));
    redis_port = redis_process->port();
    redis_pid = redis_process->pid();
  } else {
    const std::size_t colon = options.redis_address.rfind(':');
    redis_host = options.redis_address.substr(0, colon);
    redis_port = std::atoi(options.redis_address.c_str() + colon + 1);
  }
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<client::RedisSession> redis,
                          client::RedisSession::Connect(redis_port, redis_host));
  client::ResultTable table;
  table.benchmark = "large-docs";
  table.title =
      "large JSON documents: Redis with client-side codecs vs Quarry with wire compression";
  table.parameters = {{"repeat", static_cast<std::int64_t>(options.repeat)}};
  table.columns = {{"MB", "megabytes", 0},
                   {"system", "system"},
                   {"codec", "codec"},
                   {"upload ms", "upload_ms", 1},
                   {"download ms", "download_ms", 1},
                   {"put+get ms", "put_get_ms", 1},
                   {"stored KB", "stored_kilobytes", 0},
                   {"wire up KB", "wire_up_kilobytes", 0},
                   {"wire down KB", "wire_down_kilobytes", 0},
                   {"client CPU ms", "client_cpu_ms", 1},
                   {"server CPU ms", "server_cpu_ms", 1}};
  const double steps = static_cast<double>(options.sizes_mb.size() *
                                           (AllClientCodecs().size() + options.compressors.size()));
  progress.Begin("large-docs", steps);
  double done = 0;
  std::optional<double> brotli_10mb, zstd_10mb;
  for (double size_mb : options.sizes_mb) {
    const std::string json =
        LargeJsonDocument("doc", static_cast<std::size_t>(size_mb * 1e6), options.seed);
    bson_error_t error;
    bson_t* bson = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                      static_cast<ssize_t>(json.size()), &error);
    if (bson == nullptr)
      return Status(ErrorCode::kOperationFailed, std::string("generated JSON: ") + error.message);
    client::BsonPtr owner(bson);
    for (ClientCodec codec : AllClientCodecs()) {
      QUARRY_ASSIGN_OR_RETURN(Timing timing,
                              MeasureRedis(*redis, redis_pid, codec, json, *bson, options.repeat));
      table.rows.push_back(Row(size_mb, "Redis", std::string(ClientCodecName(codec)), timing,
                               options.repeat, redis_pid > 0));
      if (size_mb == 10 && codec == ClientCodec::kBrotli1)
        brotli_10mb = std::get<double>(table.rows.back()[5]);
      progress.Advance(++done);
    }
    for (const std::string& compressor : options.compressors) {
      QUARRY_ASSIGN_OR_RETURN(Timing timing,
                              MeasureQuarry(options, compressor, *bson, options.repeat));
      table.rows.push_back(Row(size_mb, "Quarry", "wire " + compressor, timing, options.repeat,
                               options.server_pid > 0));
      if (size_mb == 10 && compressor == "zstd") zstd_10mb = std::get<double>(table.rows.back()[5]);
      progress.Advance(++done);
    }
  }
  if (options.gridfs_mb > 0) {
    const int repeat = std::min(options.repeat, 3);
    QUARRY_ASSIGN_OR_RETURN(
        Timing timing,
        MeasureGridFs(options, RandomBytes(options.gridfs_mb, options.seed), repeat));
    table.rows.push_back(
        Row(options.gridfs_mb, "Quarry", "GridFS", timing, repeat, options.server_pid > 0));
    char line[200];
    std::snprintf(line, sizeof line,
                  "GridFS (libmongoc's bucket, 255 KiB chunks, random bytes, no wire "
                  "compression): %.0f MB up at %.0f MB/s, down at %.0f MB/s",
                  options.gridfs_mb, options.gridfs_mb / (Median(timing.upload_ms) / 1e3),
                  options.gridfs_mb / (Median(timing.download_ms) / 1e3));
    table.notes.push_back(line);
  }
  progress.End();
  if (brotli_10mb && zstd_10mb) {
    const double ratio = *zstd_10mb / *brotli_10mb;
    char line[200];
    std::snprintf(
        line, sizeof line,
        "target (loopback): 10 MB put+get, Quarry with zstd at most %.1fx Redis with brotli-1: "
        "%.2fx, %s",
        kTargetRatio, ratio, ratio <= kTargetRatio ? "met" : "MISSED");
    table.notes.push_back(line);
  }
  table.notes.push_back(
      "Medians over the repeats. Redis: the client encodes then SETs, GETs then decodes (msgpack: "
      "unpacks into objects). Quarry: insert_one (w:1) of the BSON document, then find by _id, "
      "compared byte for byte. Stored: the value's bytes in Redis; Quarry keeps documents of 64 "
      "KiB "
      "or more as zstd frames whatever the wire compressor, and sends that frame to a zstd "
      "client (its download bytes). Wire bytes per put+get, from Redis's INFO and the server's "
      "physicalBytesIn/Out. CPU: this client's thread and each server's process.");
  return table;
}

client::ChartOptions LargeDocsChart(const client::ResultTable& table) {
  return {.label_columns = {table.ColumnIndex("megabytes"), table.ColumnIndex("system"),
                            table.ColumnIndex("codec")},
          .value_columns = {table.ColumnIndex("upload_ms"), table.ColumnIndex("download_ms")}};
}

}  // namespace quarry::tools::bench
