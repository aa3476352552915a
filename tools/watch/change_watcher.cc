// RunWatch over libmongoc's change stream API.
#include "tools/watch/change_watcher.h"

#include <cstring>
#include <memory>
#include <optional>

#include "tools/client/mongo_client.h"
#include "tools/client/resume_token_file.h"

namespace quarry::tools::watch {
namespace {

using client::BsonPtr;
using client::ClientOptions;
using client::CollectionPtr;
using client::DriverError;
using client::MongoClient;

struct StreamDeleter {
  void operator()(mongoc_change_stream_t* stream) const { mongoc_change_stream_destroy(stream); }
};
using StreamPtr = std::unique_ptr<mongoc_change_stream_t, StreamDeleter>;

struct DatabaseDeleter {
  void operator()(mongoc_database_t* database) const { mongoc_database_destroy(database); }
};

bool SameDocument(const bson_t& a, const bson_t& b) {
  return a.len == b.len && std::memcmp(bson_get_data(&a), bson_get_data(&b), a.len) == 0;
}

// The error a stream holds, or OK. `context` prefixes the message.
Status StreamError(mongoc_change_stream_t* stream, const std::string& context) {
  bson_error_t error;
  const bson_t* reply = nullptr;
  if (!mongoc_change_stream_error_document(stream, &error, &reply)) return Status::OK();
  return DriverError(error, context);
}

StreamPtr OpenStream(MongoClient& client, const WatchOptions& options, const bson_t& pipeline,
                     const bson_t& opts) {
  if (!options.collection.empty()) {
    CollectionPtr collection = client.Collection(options.database, options.collection);
    return StreamPtr(mongoc_collection_watch(collection.get(), &pipeline, &opts));
  }
  if (!options.database.empty()) {
    std::unique_ptr<mongoc_database_t, DatabaseDeleter> database(
        mongoc_client_get_database(client.get(), options.database.c_str()));
    return StreamPtr(mongoc_database_watch(database.get(), &pipeline, &opts));
  }
  return StreamPtr(mongoc_client_watch(client.get(), &pipeline, &opts));
}

// Saves `token` unless it is the one saved last (an idle stream reports the same
// postBatchResumeToken on every empty batch).
class TokenSaver {
 public:
  explicit TokenSaver(std::string path) : path_(std::move(path)) {}

  Status Save(const bson_t& token) {
    if (path_.empty()) return Status::OK();
    if (last_.has_value() && SameDocument(**last_, token)) return Status::OK();
    QUARRY_RETURN_IF_ERROR(client::WriteResumeToken(path_, token));
    last_.emplace(bson_copy(&token));
    return Status::OK();
  }

 private:
  std::string path_;
  std::optional<BsonPtr> last_;
};

}  // namespace

Status ValidateWatchOptions(const WatchOptions& options) {
  if (!options.collection.empty() && options.database.empty()) {
    return Status(ErrorCode::kBadValue, "--collection needs --db");
  }
  const std::string& mode = options.full_document;
  if (!mode.empty() && mode != "default" && mode != "updateLookup" && mode != "whenAvailable" &&
      mode != "required") {
    return Status(ErrorCode::kBadValue,
                  "unknown --full-document '" + mode +
                      "' (choose from default, updateLookup, whenAvailable, required)");
  }
  if (options.max_await_ms <= 0) {
    return Status(ErrorCode::kBadValue, "the await time must be positive");
  }
  return Status::OK();
}

StatusWith<std::int64_t> RunWatch(const WatchOptions& options, std::FILE* out,
                                  const std::atomic<bool>& stop) {
  QUARRY_RETURN_IF_ERROR(ValidateWatchOptions(options));
  // Read the token before connecting: a bad file is the user's to fix, whatever the server.
  std::optional<BsonPtr> resume_after;
  if (!options.resume_token_file.empty()) {
    QUARRY_ASSIGN_OR_RETURN(resume_after, client::ReadResumeToken(options.resume_token_file));
  }
  ClientOptions client_options;
  client_options.uri = options.uri;
  client_options.app_name = "quarry-watch";
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<MongoClient> client,
                          MongoClient::Connect(client_options));

  bson_t pipeline = BSON_INITIALIZER;
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_INT64(&opts, "maxAwaitTimeMS", options.max_await_ms);
  if (!options.full_document.empty()) {
    BSON_APPEND_UTF8(&opts, "fullDocument", options.full_document.c_str());
  }
  if (resume_after.has_value()) BSON_APPEND_DOCUMENT(&opts, "resumeAfter", resume_after->get());
  StreamPtr stream = OpenStream(*client, options, pipeline, opts);
  bson_destroy(&pipeline);
  bson_destroy(&opts);
  QUARRY_RETURN_IF_ERROR(StreamError(stream.get(), "cannot open the change stream"));

  TokenSaver saver(options.resume_token_file);
  std::int64_t printed = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    const bson_t* event = nullptr;
    if (mongoc_change_stream_next(stream.get(), &event)) {
      size_t length = 0;
      char* json = bson_as_relaxed_extended_json(event, &length);
      std::fwrite(json, 1, length, out);
      std::fputc('\n', out);
      bson_free(json);
      if (std::fflush(out) != 0) {
        return Status(ErrorCode::kOperationFailed, "cannot write to standard output");
      }
      ++printed;
      bson_iter_t id;
      if (bson_iter_init_find(&id, event, "_id") && BSON_ITER_HOLDS_DOCUMENT(&id)) {
        std::uint32_t id_length = 0;
        const std::uint8_t* id_data = nullptr;
        bson_iter_document(&id, &id_length, &id_data);
        bson_t token;
        if (bson_init_static(&token, id_data, id_length)) {
          QUARRY_RETURN_IF_ERROR(saver.Save(token));
        }
      }
      continue;
    }
    Status failed = StreamError(stream.get(), "change stream failed");
    // A signal may interrupt the awaited getMore; that is the stop it asked for, not a failure.
    if (!failed.ok()) return stop.load() ? StatusWith<std::int64_t>(printed) : failed;
    // An empty batch: the stream's postBatchResumeToken moves past events filtered out or in
    // other namespaces, so a restart need not scan them again.
    const bson_t* token = mongoc_change_stream_get_resume_token(stream.get());
    if (token != nullptr) QUARRY_RETURN_IF_ERROR(saver.Save(*token));
  }
  return printed;
}

}  // namespace quarry::tools::watch
