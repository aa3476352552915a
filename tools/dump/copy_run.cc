#include "tools/dump/copy_run.h"

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "tools/client/batch_queue.h"
#include "tools/client/mongo_client.h"
#include "tools/client/resume_token_file.h"
#include "tools/dump/collection_writer.h"
#include "tools/dump/id_ranges.h"
#include "tools/dump/oplog_capture.h"
#include "tools/dump/oplog_replay.h"
#include "tools/dump/parallel_jobs.h"
#include "tools/dump/source_catalog.h"

namespace quarry::tools::dumping {
namespace {

constexpr std::int64_t kMaxAwaitMillis = 200;

using client::CursorPtr;

struct ChangeStreamDeleter {
  void operator()(mongoc_change_stream_t* stream) const { mongoc_change_stream_destroy(stream); }
};
using ChangeStreamPtr = std::unique_ptr<mongoc_change_stream_t, ChangeStreamDeleter>;

using Batch = std::vector<client::BsonPtr>;

// The source's change stream: over one collection, one database, or the deployment, as the copy.
StatusWith<ChangeStreamPtr> OpenChangeStream(client::MongoClient& source,
                                             const CopyOptions& options,
                                             const bson_t* resume_after) {
  bson_t pipeline = BSON_INITIALIZER;
  bson_t* opts = BCON_NEW("fullDocument", BCON_UTF8("updateLookup"), "maxAwaitTimeMS",
                          BCON_INT64(kMaxAwaitMillis));
  if (resume_after != nullptr) BSON_APPEND_DOCUMENT(opts, "resumeAfter", resume_after);
  mongoc_change_stream_t* stream = nullptr;
  if (options.database.empty()) {
    stream = mongoc_client_watch(source.get(), &pipeline, opts);
  } else if (options.collection.empty()) {
    mongoc_database_t* database =
        mongoc_client_get_database(source.get(), options.database.c_str());
    stream = mongoc_database_watch(database, &pipeline, opts);
    mongoc_database_destroy(database);
  } else {
    client::CollectionPtr collection = source.Collection(options.database, options.collection);
    stream = mongoc_collection_watch(collection.get(), &pipeline, opts);
  }
  bson_destroy(opts);
  bson_destroy(&pipeline);
  ChangeStreamPtr owned(stream);
  bson_error_t error;
  const bson_t* reply = nullptr;
  if (mongoc_change_stream_error_document(stream, &error, &reply)) {
    return client::DriverError(error, "opening the source's change stream");
  }
  return owned;
}

// Copies the documents `filter` selects through a bounded queue: this thread writes what
// another reads.
Status CopyRange(client::MongoClient& source, CollectionWriter& writer, const CopyOptions& options,
                 const std::string& db, const std::string& name, const bson_t& filter) {
  client::BatchQueue<Batch> queue(options.queued_batches);
  Status read_status = Status::OK();
  std::thread reader([&] {
    client::CollectionPtr from = source.Collection(db, name);
    bson_t* opts =
        BCON_NEW("batchSize", BCON_INT64(static_cast<std::int64_t>(options.batch_documents)));
    CursorPtr cursor(mongoc_collection_find_with_opts(from.get(), &filter, opts, nullptr));
    bson_destroy(opts);
    Batch batch;
    const bson_t* document = nullptr;
    while (mongoc_cursor_next(cursor.get(), &document)) {
      batch.emplace_back(bson_copy(document));
      if (batch.size() >= options.batch_documents && !queue.Push(std::exchange(batch, Batch{})))
        return;
    }
    bson_error_t error;
    if (mongoc_cursor_error(cursor.get(), &error))
      read_status = client::DriverError(error, "reading " + db + "." + name);
    if (!batch.empty()) queue.Push(std::move(batch));
    queue.Close();
  });
  Status write_status = Status::OK();
  while (std::optional<Batch> batch = queue.Pop()) {
    for (const client::BsonPtr& document : *batch) {
      write_status = writer.Add(document.get());
      if (!write_status.ok()) break;
    }
    if (!write_status.ok()) {
      queue.Close(/*discard=*/true);  // the reader stops at its next push
      break;
    }
  }
  reader.join();
  QUARRY_RETURN_IF_ERROR(read_status);
  QUARRY_RETURN_IF_ERROR(write_status);
  return writer.Finish();
}

struct Connections {
  std::unique_ptr<client::MongoClient> source;
  std::unique_ptr<client::MongoClient> target;
};

StatusWith<Connections> Connect(const CopyOptions& options) {
  auto source = client::MongoClient::Connect({.uri = options.from, .app_name = "quarry-copy"});
  if (!source.ok()) return source.status();
  auto target = client::MongoClient::Connect({.uri = options.to, .app_name = "quarry-copy"});
  if (!target.ok()) return target.status();
  return Connections{std::move(source.value()), std::move(target.value())};
}

// Copies one collection: options and indexes, then its documents, in parallel _id ranges when
// it is large (each range on connections of its own).
Status CopyCollection(client::MongoClient& source, client::MongoClient& target,
                      const CopyOptions& options, SourceCollection collection, LineLog* log,
                      WriteCounters* counters) {
  const std::string db = collection.db;
  const std::string name = collection.metadata.name;
  const bool is_collection = collection.metadata.type == "collection";
  const WriterOptions writing{
      .drop = options.drop, .build_indexes = false, .batch_documents = options.batch_documents};
  CollectionWriter writer(&target, writing, db, std::move(collection.metadata), log, counters);
  QUARRY_RETURN_IF_ERROR(writer.Prepare());
  // Indexes before documents: a unique index then refuses what the source would have refused.
  QUARRY_RETURN_IF_ERROR(writer.BuildIndexes());
  if (!is_collection) return writer.Finish();

  QUARRY_ASSIGN_OR_RETURN(std::vector<client::BsonPtr> ranges,
                          SplitIdRanges(source, db, name, options.ranges_per_collection));
  if (ranges.size() == 1) return CopyRange(source, writer, options, db, name, *ranges[0]);
  QUARRY_RETURN_IF_ERROR(writer.Finish());
  const int count = static_cast<int>(ranges.size());
  log->Line("copying " + db + "." + name + " in " + std::to_string(count) + " _id ranges at once");
  return RunInParallel(
      std::move(ranges), count, [&] { return Connect(options); },
      [&](Connections& connections, client::BsonPtr& filter) {
        // Writes documents only: the collection and its indexes exist by now.
        CollectionMetadata documents_only;
        documents_only.name = name;
        CollectionWriter range_writer(connections.target.get(), writing, db,
                                      std::move(documents_only), log, counters);
        return CopyRange(*connections.source, range_writer, options, db, name, *filter);
      });
}

Status CopyAll(const CopyOptions& options, std::vector<SourceCollection> collections, LineLog* log,
               WriteCounters* counters) {
  return RunInParallel(
      std::move(collections), options.parallel_collections, [&] { return Connect(options); },
      [&](Connections& connections, SourceCollection& collection) {
        log->Line("copying " + collection.db + "." + collection.metadata.name);
        return CopyCollection(*connections.source, *connections.target, options,
                              std::move(collection), log, counters);
      });
}

// Applies the source's changes to the target until `stop`, saving the position as it goes.
StatusWith<std::int64_t> Follow(mongoc_change_stream_t* stream, client::MongoClient& target,
                                const CopyOptions& options, LineLog* log,
                                const std::atomic<bool>& stop) {
  OplogReplayer replayer(&target, [](const std::string& ns) {
    return ns.rfind("local.", 0) != 0 && ns.rfind("config.", 0) != 0 &&
           ns.find(".system.") == std::string::npos;
  });
  log->Line("following the source's changes (stop with Ctrl-C)");
  while (!stop.load()) {
    const bson_t* event = nullptr;
    const bool got = mongoc_change_stream_next(stream, &event);
    if (got) {
      bson_t entry = BSON_INITIALIZER;
      auto converted = OplogEntryOf(*event, &entry);
      Status applied = !converted.ok()     ? converted.status()
                       : converted.value() ? replayer.Apply(entry)
                                           : Status::OK();
      bson_destroy(&entry);
      QUARRY_RETURN_IF_ERROR(applied);
    } else {
      bson_error_t error;
      const bson_t* reply = nullptr;
      if (mongoc_change_stream_error_document(stream, &error, &reply)) {
        return client::DriverError(error, "reading the source's change stream");
      }
    }
    // After each event, and at each empty batch (its token moves past filtered events).
    if (!options.resume_token_file.empty()) {
      const bson_t* token = mongoc_change_stream_get_resume_token(stream);
      if (token != nullptr)
        QUARRY_RETURN_IF_ERROR(client::WriteResumeToken(options.resume_token_file, *token));
    }
  }
  return replayer.applied();
}

StatusWith<std::vector<CopyCount>> CountBoth(client::MongoClient& source,
                                             client::MongoClient& target,
                                             const std::vector<std::string>& namespaces) {
  std::vector<CopyCount> counts;
  for (const std::string& ns : namespaces) {
    const std::size_t dot = ns.find('.');
    CopyCount count{ns};
    for (auto [client, out] :
         {std::pair{&source, &count.source}, std::pair{&target, &count.target}}) {
      client::CollectionPtr collection = client->Collection(ns.substr(0, dot), ns.substr(dot + 1));
      bson_t filter = BSON_INITIALIZER;
      bson_error_t error;
      *out = mongoc_collection_count_documents(collection.get(), &filter, nullptr, nullptr, nullptr,
                                               &error);
      bson_destroy(&filter);
      if (*out < 0) return client::DriverError(error, "counting " + ns);
    }
    counts.push_back(count);
  }
  return counts;
}

}  // namespace

Status ValidateCopyOptions(const CopyOptions& options) {
  if (options.from.empty() || options.to.empty())
    return Status(ErrorCode::kBadValue, "--from and --to are required");
  if (!options.collection.empty() && options.database.empty())
    return Status(ErrorCode::kBadValue, "--collection needs --db");
  if (!options.resume_token_file.empty() && !options.follow) {
    return Status(ErrorCode::kBadValue, "--resume-token-file is for --follow");
  }
  if (options.parallel_collections < 1 || options.ranges_per_collection < 1 ||
      options.batch_documents < 1 || options.queued_batches < 1) {
    return Status(ErrorCode::kBadValue,
                  "--numParallelCollections, --numParallelRanges and --batchSize must be at "
                  "least 1");
  }
  return Status::OK();
}

StatusWith<CopyResult> RunCopy(const CopyOptions& options, std::FILE* log_stream,
                               const std::atomic<bool>& stop) {
  QUARRY_RETURN_IF_ERROR(ValidateCopyOptions(options));
  auto source = client::MongoClient::Connect({.uri = options.from, .app_name = "quarry-copy"});
  if (!source.ok())
    return Status(source.status().code(), "--from: " + std::string(source.status().reason()));
  auto target = client::MongoClient::Connect({.uri = options.to, .app_name = "quarry-copy"});
  if (!target.ok())
    return Status(target.status().code(), "--to: " + std::string(target.status().reason()));
  LineLog log(log_stream);
  CopyResult result;

  std::optional<client::BsonPtr> saved;
  if (options.follow && !options.resume_token_file.empty()) {
    auto read = client::ReadResumeToken(options.resume_token_file);
    if (!read.ok()) return read.status();
    if (read.value().has_value()) saved.emplace(std::move(*read.value()));
  }
  // The stream opens before the first document is read, so no change made during the copy is
  // missed; replaying one the copy already saw leaves the same document.
  ChangeStreamPtr stream;
  if (options.follow) {
    auto opened = OpenChangeStream(*source.value(), options, saved ? saved->get() : nullptr);
    if (!opened.ok()) return opened.status();
    stream = std::move(opened.value());
  }

  auto listed = ListSourceCollections(
      *source.value(), {options.database, options.collection, options.exclude_collections});
  if (!listed.ok()) return listed.status();
  std::vector<std::string> namespaces;
  for (const SourceCollection& collection : listed.value()) {
    if (collection.metadata.type == "collection")
      namespaces.push_back(collection.db + "." + collection.metadata.name);
  }
  WriteCounters counters;
  if (saved) {
    log.Line("resuming from " + options.resume_token_file + ": the collections were copied before");
  } else {
    QUARRY_RETURN_IF_ERROR(CopyAll(options, std::move(listed.value()), &log, &counters));
    result.copied = true;
    if (options.follow && !options.resume_token_file.empty()) {
      // Saved only now: an interrupted copy starts over rather than skip what it never wrote.
      const bson_t* token = mongoc_change_stream_get_resume_token(stream.get());
      if (token != nullptr)
        QUARRY_RETURN_IF_ERROR(client::WriteResumeToken(options.resume_token_file, *token));
    }
  }
  result.documents = counters.restored.load();
  result.failed = counters.failed.load();
  if (options.follow) {
    auto followed = Follow(stream.get(), *target.value(), options, &log, stop);
    if (!followed.ok()) return followed.status();
    result.changes_applied = followed.value();
  }
  auto counts = CountBoth(*source.value(), *target.value(), namespaces);
  if (!counts.ok()) return counts.status();
  result.counts = std::move(counts.value());
  return result;
}

}  // namespace quarry::tools::dumping
