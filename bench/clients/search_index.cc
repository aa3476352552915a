// Polling every few milliseconds: a build's READY is seen within that of its end, and the
// $listSearchIndexes that asks costs the server next to nothing.
#include "bench/clients/search_index.h"

#include <chrono>
#include <thread>

namespace quarry::bench {
namespace {

namespace tc = tools::client;
using Clock = std::chrono::steady_clock;

// The index's status as $listSearchIndexes reports it; "" when it lists no such index.
StatusWith<std::string> SearchIndexStatus(tc::MongoClient& client, const std::string& db,
                                          const std::string& collection, const std::string& index) {
  tc::CollectionPtr handle = client.Collection(db, collection);
  const tc::BsonPtr pipeline(
      BCON_NEW("0", "{", "$listSearchIndexes", "{", "name", BCON_UTF8(index.c_str()), "}", "}"));
  mongoc_cursor_t* cursor = mongoc_collection_aggregate(handle.get(), MONGOC_QUERY_NONE,
                                                        pipeline.get(), nullptr, nullptr);
  std::string status;
  const bson_t* doc;
  while (mongoc_cursor_next(cursor, &doc)) {
    bson_iter_t iter;
    if (bson_iter_init_find(&iter, doc, "status") && BSON_ITER_HOLDS_UTF8(&iter)) {
      status = bson_iter_utf8(&iter, nullptr);
    }
  }
  bson_error_t error;
  const bool failed = mongoc_cursor_error(cursor, &error);
  mongoc_cursor_destroy(cursor);
  if (failed) return tc::DriverError(error, "$listSearchIndexes failed");
  return status;
}

// Polls the index's status until `done` accepts it or `timeout_seconds` pass.
template <typename Done>
StatusWith<std::string> PollStatus(tc::MongoClient& client, const std::string& db,
                                   const std::string& collection, const std::string& index,
                                   double timeout_seconds, Done done) {
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  while (true) {
    QUARRY_ASSIGN_OR_RETURN(std::string status, SearchIndexStatus(client, db, collection, index));
    if (done(status) || Clock::now() >= deadline) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

Status CreateCollection(tc::MongoClient& client, const std::string& db,
                        const std::string& collection) {
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&command, "create", collection.c_str());
  StatusWith<tc::BsonPtr> reply = client.RunCommand(db, command);
  bson_destroy(&command);
  return reply.status();
}

Status WaitUntilReady(tc::MongoClient& client, const std::string& db, const std::string& collection,
                      const std::string& index, double timeout_seconds) {
  QUARRY_ASSIGN_OR_RETURN(
      std::string status,
      PollStatus(client, db, collection, index, timeout_seconds,
                 [](const std::string& now) { return now == "READY" || now == "FAILED"; }));
  if (status == "READY") return Status::OK();
  return Status(status == "FAILED" ? ErrorCode::kOperationFailed : ErrorCode::kExceededTimeLimit,
                "search index " + index + " is not READY (status \"" + status + "\")");
}

Status DropSearchIndex(tc::MongoClient& client, const std::string& db,
                       const std::string& collection, const std::string& index,
                       double timeout_seconds) {
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&command, "dropSearchIndex", collection.c_str());
  BSON_APPEND_UTF8(&command, "name", index.c_str());
  StatusWith<tc::BsonPtr> reply = client.RunCommand(db, command);
  bson_destroy(&command);
  QUARRY_RETURN_IF_ERROR(reply.status());
  QUARRY_ASSIGN_OR_RETURN(std::string status,
                          PollStatus(client, db, collection, index, timeout_seconds,
                                     [](const std::string& now) { return now.empty(); }));
  if (status.empty()) return Status::OK();
  return Status(ErrorCode::kExceededTimeLimit,
                "search index " + index + " is still listed (status \"" + status + "\")");
}

}  // namespace quarry::bench
