// The driver calls behind QuarrySession; each checks the answer, so a benchmark row cannot
// count operations that failed or found nothing.
#include "bench/pointops/quarry_session.h"

#include "tools/bench/bulk_insert.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

// Reads `cursor` to its end and destroys it.
StatusWith<std::int64_t> Drain(mongoc_cursor_t* cursor, const char* what) {
  std::int64_t count = 0;
  const bson_t* doc;
  while (mongoc_cursor_next(cursor, &doc)) ++count;
  bson_error_t error;
  const bool failed = mongoc_cursor_error(cursor, &error);
  mongoc_cursor_destroy(cursor);
  if (failed) return tc::DriverError(error, what);
  return count;
}

}  // namespace

StatusWith<std::unique_ptr<QuarrySession>> QuarrySession::Connect(const std::string& uri,
                                                                  const std::string& db,
                                                                  const std::string& app_name) {
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<tc::MongoClient> client,
                          tc::MongoClient::Connect({.uri = uri, .app_name = app_name}));
  return std::unique_ptr<QuarrySession>(new QuarrySession(std::move(client), db));
}

mongoc_collection_t* QuarrySession::Handle(const std::string& collection) {
  auto found = handles_.find(collection);
  if (found == handles_.end()) {
    found = handles_.emplace(collection, client_->Collection(db_, collection)).first;
  }
  return found->second.get();
}

Status QuarrySession::Ping() {
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_INT32(&command, "ping", 1);
  bson_error_t error;
  const bool ok =
      mongoc_client_command_simple(client_->get(), "admin", &command, nullptr, nullptr, &error);
  bson_destroy(&command);
  return ok ? Status::OK() : tc::DriverError(error, "ping failed");
}

Status QuarrySession::InsertOne(const std::string& collection, const std::string& key,
                                const std::string& value) {
  bson_t doc = BSON_INITIALIZER;
  bson_append_utf8(&doc, "_id", 3, key.data(), static_cast<int>(key.size()));
  bson_append_utf8(&doc, "v", 1, value.data(), static_cast<int>(value.size()));
  bson_error_t error;
  const bool ok = mongoc_collection_insert_one(Handle(collection), &doc, nullptr, nullptr, &error);
  bson_destroy(&doc);
  return ok ? Status::OK() : tc::DriverError(error, "insert_one failed");
}

Status QuarrySession::InsertMany(const std::string& collection,
                                 const tools::bench::DocumentSet& docs) {
  return tools::bench::BulkInsert(Handle(collection), docs, 0, docs.size(), {});
}

Status QuarrySession::FindById(const std::string& collection, const std::string& key,
                               std::size_t value_bytes) {
  bson_t filter = BSON_INITIALIZER;
  bson_append_utf8(&filter, "_id", 3, key.data(), static_cast<int>(key.size()));
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_INT32(&opts, "limit", 1);
  BSON_APPEND_BOOL(&opts, "singleBatch", true);
  mongoc_cursor_t* cursor =
      mongoc_collection_find_with_opts(Handle(collection), &filter, &opts, nullptr);
  bson_destroy(&filter);
  bson_destroy(&opts);
  const bson_t* doc;
  const bool found = mongoc_cursor_next(cursor, &doc);
  std::uint32_t length = 0;
  bson_iter_t iter;
  if (found && bson_iter_init_find(&iter, doc, "v") && BSON_ITER_HOLDS_UTF8(&iter)) {
    bson_iter_utf8(&iter, &length);
  }
  bson_error_t error;
  Status status;
  if (mongoc_cursor_error(cursor, &error)) {
    status = tc::DriverError(error, "find by _id failed");
  } else if (!found || length != value_bytes) {
    status = Status(ErrorCode::kOperationFailed,
                    "find by _id did not return " + key + " with its value");
  }
  mongoc_cursor_destroy(cursor);
  return status;
}

StatusWith<std::int64_t> QuarrySession::FindAll(const std::string& collection,
                                                const bson_t& filter) {
  return Drain(mongoc_collection_find_with_opts(Handle(collection), &filter, nullptr, nullptr),
               "find failed");
}

StatusWith<std::int64_t> QuarrySession::AggregateAll(const std::string& collection,
                                                     const bson_t& pipeline) {
  return Drain(mongoc_collection_aggregate(Handle(collection), MONGOC_QUERY_NONE, &pipeline,
                                           nullptr, nullptr),
               "aggregate failed");
}

Status QuarrySession::Drop(const std::string& collection) {
  bson_error_t error;
  if (mongoc_collection_drop(Handle(collection), &error)) return Status::OK();
  // Dropping a collection that does not exist is not a failure here.
  if (error.code == static_cast<std::uint32_t>(ErrorCode::kNamespaceNotFound)) return Status::OK();
  return tc::DriverError(error, "drop failed");
}

}  // namespace quarry::bench
