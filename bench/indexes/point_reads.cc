// Point-read loops. Connections are made before the clock starts, so ops/s is reads only.
#include "bench/indexes/point_reads.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string_view>
#include <vector>

#include "bench/clients/redis_session.h"
#include "bench/clients/timed_clients.h"
#include "tools/client/mongo_client.h"

namespace quarry::bench {
namespace {

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

class RedisReader : public Reader {
 public:
  RedisReader(std::unique_ptr<RedisSession> session, const ListingSet& set)
      : session_(std::move(session)), set_(set) {}

  Status Read(std::size_t index) override {
    return session_->Get(RedisKeyOf(index), set_.docs.Bytes(index).size());
  }

 private:
  std::unique_ptr<RedisSession> session_;
  const ListingSet& set_;
};

// A reader as one of bench/clients' timed clients: each operation reads a random document.
class ReadingClient : public TimedClient {
 public:
  ReadingClient(std::unique_ptr<Reader> reader, std::size_t documents)
      : reader_(std::move(reader)), documents_(documents) {}
  StatusWith<bool> RunOnce(std::mt19937_64& random) override {
    QUARRY_RETURN_IF_ERROR(reader_->Read(random() % documents_));
    return true;
  }

 private:
  std::unique_ptr<Reader> reader_;
  std::size_t documents_;
};

StatusWith<PointReadResult> RunReaders(const ReaderFactory& make, std::size_t documents,
                                       int threads, double seconds) {
  auto clients = [&]() -> StatusWith<std::unique_ptr<TimedClient>> {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Reader> reader, make());
    return std::unique_ptr<TimedClient>(
        std::make_unique<ReadingClient>(std::move(reader), documents));
  };
  QUARRY_ASSIGN_OR_RETURN(LatencySummary summary, RunTimedClients(clients, threads, seconds));
  PointReadResult result;
  result.reads = summary.ops;
  result.reads_per_second = summary.ops_per_second;
  result.p50_micros = summary.p50_micros;
  result.p99_micros = summary.p99_micros;
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
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<RedisSession> session, RedisSession::Connect(port));
  // One round trip per SET would take minutes for a million documents.
  constexpr std::size_t kPipelineDepth = 1'000;
  for (std::size_t begin = 0; begin < set.docs.size(); begin += kPipelineDepth) {
    const std::size_t end = std::min(set.docs.size(), begin + kPipelineDepth);
    std::vector<std::string> keys;
    keys.reserve(end - begin);
    std::vector<RedisCommand> commands;
    commands.reserve(end - begin);
    for (std::size_t index = begin; index < end; ++index) {
      keys.push_back(RedisKeyOf(index));
      auto bytes = set.docs.Bytes(index);
      commands.push_back(
          {"SET", keys.back(),
           std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())});
    }
    QUARRY_ASSIGN_OR_RETURN(std::vector<RedisReplyPtr> replies, session->Pipeline(commands));
    for (const RedisReplyPtr& reply : replies) {
      if (reply->type != REDIS_REPLY_STATUS) {
        return Status(ErrorCode::kOperationFailed, "Redis refused a SET");
      }
    }
  }
  return Status::OK();
}

StatusWith<PointReadResult> RedisPointReads(int port, const ListingSet& set, int threads,
                                            double seconds) {
  auto make = [&]() -> StatusWith<std::unique_ptr<Reader>> {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<RedisSession> session, RedisSession::Connect(port));
    return std::unique_ptr<Reader>(std::make_unique<RedisReader>(std::move(session), set));
  };
  return RunReaders(make, set.docs.size(), threads, seconds);
}

}  // namespace quarry::bench
