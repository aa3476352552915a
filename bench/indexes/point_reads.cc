// Point-read loops. Connections are made before the clock starts, so ops/s is reads only.
#include "bench/indexes/point_reads.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "tools/client/mongo_client.h"

namespace quarry::bench {
namespace {

using Clock = std::chrono::steady_clock;

class Reader {
 public:
  virtual ~Reader() = default;
  // Reads document `index` and checks that it came back.
  virtual Status Read(std::size_t index) = 0;
};

using ReaderFactory = std::function<StatusWith<std::unique_ptr<Reader>>()>;

class QuarryReader : public Reader {
 public:
  QuarryReader(std::unique_ptr<tools::client::MongoClient> client,
               tools::client::CollectionPtr collection, const ListingSet& set, PointKey key)
      : client_(std::move(client)), collection_(std::move(collection)), set_(set), key_(key) {
    BSON_APPEND_INT32(&opts_, "limit", 1);
    BSON_APPEND_BOOL(&opts_, "singleBatch", true);
  }
  ~QuarryReader() override {
    bson_destroy(&opts_);
    bson_destroy(&filter_);
  }

  Status Read(std::size_t index) override {
    if (key_ == PointKey::kPing) return Ping();
    bson_reinit(&filter_);
    if (key_ == PointKey::kId) {
      BSON_APPEND_OID(&filter_, "_id", &set_.ids[index]);
    } else {
      BSON_APPEND_INT64(&filter_, "listing_id", kFirstListingId + static_cast<std::int64_t>(index));
    }
    mongoc_cursor_t* cursor =
        mongoc_collection_find_with_opts(collection_.get(), &filter_, &opts_, nullptr);
    const bson_t* doc;
    bool found = mongoc_cursor_next(cursor, &doc);
    bson_error_t error;
    Status status;
    if (mongoc_cursor_error(cursor, &error)) {
      status = tools::client::DriverError(error, "point read failed");
    } else if (!found) {
      status = Status(ErrorCode::kOperationFailed,
                      "document " + std::to_string(index) + " was not found by a point read");
    }
    mongoc_cursor_destroy(cursor);
    return status;
  }

 private:
  Status Ping() {
    bson_reinit(&filter_);
    BSON_APPEND_INT32(&filter_, "ping", 1);
    bson_error_t error;
    bool ok =
        mongoc_client_command_simple(client_->get(), "admin", &filter_, nullptr, nullptr, &error);
    return ok ? Status::OK() : tools::client::DriverError(error, "ping failed");
  }

  std::unique_ptr<tools::client::MongoClient> client_;
  tools::client::CollectionPtr collection_;
  const ListingSet& set_;
  PointKey key_;
  bson_t filter_ = BSON_INITIALIZER;
  bson_t opts_ = BSON_INITIALIZER;
};

struct RedisDeleter {
  void operator()(redisContext* context) const { redisFree(context); }
};
using RedisPtr = std::unique_ptr<redisContext, RedisDeleter>;

StatusWith<RedisPtr> ConnectRedis(int port) {
  RedisPtr context(redisConnect("127.0.0.1", port));
  if (context == nullptr || context->err != 0) {
    return Status(ErrorCode::kHostUnreachable,
                  "cannot reach Redis on 127.0.0.1:" + std::to_string(port) + ": " +
                      (context ? context->errstr : "out of memory"));
  }
  return context;
}

class RedisReader : public Reader {
 public:
  RedisReader(RedisPtr context, const ListingSet& set) : context_(std::move(context)), set_(set) {}

  Status Read(std::size_t index) override {
    std::string key = RedisKeyOf(index);
    auto* reply =
        static_cast<redisReply*>(redisCommand(context_.get(), "GET %b", key.data(), key.size()));
    if (reply == nullptr) {
      return Status(ErrorCode::kHostUnreachable, std::string("Redis GET: ") + context_->errstr);
    }
    bool ok = reply->type == REDIS_REPLY_STRING &&
              static_cast<std::size_t>(reply->len) == set_.docs.Bytes(index).size();
    freeReplyObject(reply);
    if (!ok) return Status(ErrorCode::kOperationFailed, "Redis has no value for " + key);
    return Status::OK();
  }

 private:
  RedisPtr context_;
  const ListingSet& set_;
};

double Percentile(std::vector<float>& sorted, double fraction) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(fraction * sorted.size()))];
}

StatusWith<PointReadResult> RunReaders(const ReaderFactory& make, std::size_t documents,
                                       int threads, double seconds) {
  std::vector<std::vector<float>> micros(threads);
  std::vector<Status> statuses(threads);
  std::latch connected(threads + 1);
  std::vector<std::thread> workers;
  for (int thread_idx = 0; thread_idx < threads; ++thread_idx) {
    workers.emplace_back([&, thread_idx] {
      StatusWith<std::unique_ptr<Reader>> reader = make();
      connected.arrive_and_wait();
      if (!reader.ok()) {
        statuses[thread_idx] = reader.status();
        return;
      }
      // Seeded by thread, so Quarry and Redis read the same documents in the same order.
      std::mt19937_64 random(thread_idx + 1);
      const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                            std::chrono::duration<double>(seconds));
      for (Clock::time_point now = Clock::now(); now < deadline;) {
        Status status = reader.value()->Read(random() % documents);
        Clock::time_point done = Clock::now();
        if (!status.ok()) {
          statuses[thread_idx] = status;
          return;
        }
        micros[thread_idx].push_back(
            static_cast<float>(std::chrono::duration<double, std::micro>(done - now).count()));
        now = done;
      }
    });
  }
  connected.arrive_and_wait();
  const Clock::time_point start = Clock::now();
  for (std::thread& worker : workers) worker.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (const Status& status : statuses) QUARRY_RETURN_IF_ERROR(status);
  std::vector<float> all;
  for (const auto& thread_micros : micros) {
    all.insert(all.end(), thread_micros.begin(), thread_micros.end());
  }
  std::sort(all.begin(), all.end());
  PointReadResult result;
  result.reads = static_cast<std::int64_t>(all.size());
  result.reads_per_second = static_cast<double>(all.size()) / elapsed;
  result.p50_micros = Percentile(all, 0.50);
  result.p99_micros = Percentile(all, 0.99);
  return result;
}

}  // namespace

StatusWith<PointReadResult> QuarryPointReads(const std::string& uri, const std::string& db,
                                             const std::string& collection, const ListingSet& set,
                                             PointKey key, int threads, double seconds) {
  auto make = [&]() -> StatusWith<std::unique_ptr<Reader>> {
    QUARRY_ASSIGN_OR_RETURN(
        std::unique_ptr<tools::client::MongoClient> client,
        tools::client::MongoClient::Connect({.uri = uri, .app_name = "index_bench point reads"}));
    tools::client::CollectionPtr handle = client->Collection(db, collection);
    return std::unique_ptr<Reader>(
        std::make_unique<QuarryReader>(std::move(client), std::move(handle), set, key));
  };
  return RunReaders(make, set.docs.size(), threads, seconds);
}

Status LoadRedis(int port, const ListingSet& set) {
  QUARRY_ASSIGN_OR_RETURN(RedisPtr context, ConnectRedis(port));
  // One round trip per SET would take minutes for a million documents.
  constexpr std::size_t kPipelineDepth = 1'000;
  for (std::size_t begin = 0; begin < set.docs.size(); begin += kPipelineDepth) {
    const std::size_t end = std::min(set.docs.size(), begin + kPipelineDepth);
    for (std::size_t index = begin; index < end; ++index) {
      std::string key = RedisKeyOf(index);
      auto bytes = set.docs.Bytes(index);
      redisAppendCommand(context.get(), "SET %b %b", key.data(), key.size(), bytes.data(),
                         bytes.size());
    }
    for (std::size_t index = begin; index < end; ++index) {
      void* raw = nullptr;
      if (redisGetReply(context.get(), &raw) != REDIS_OK || raw == nullptr) {
        return Status(ErrorCode::kHostUnreachable, std::string("Redis SET: ") + context->errstr);
      }
      auto* reply = static_cast<redisReply*>(raw);
      bool ok = reply->type == REDIS_REPLY_STATUS;
      freeReplyObject(reply);
      if (!ok) return Status(ErrorCode::kOperationFailed, "Redis refused a SET");
    }
  }
  return Status::OK();
}

StatusWith<PointReadResult> RedisPointReads(int port, const ListingSet& set, int threads,
                                            double seconds) {
  auto make = [&]() -> StatusWith<std::unique_ptr<Reader>> {
    QUARRY_ASSIGN_OR_RETURN(RedisPtr context, ConnectRedis(port));
    return std::unique_ptr<Reader>(std::make_unique<RedisReader>(std::move(context), set));
  };
  return RunReaders(make, set.docs.size(), threads, seconds);
}

}  // namespace quarry::bench
