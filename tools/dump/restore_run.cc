#include "tools/dump/restore_run.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "tools/client/mongo_client.h"
#include "tools/dump/archive.h"
#include "tools/dump/byte_stream.h"
#include "tools/dump/collection_metadata.h"
#include "tools/dump/dump_run.h"
#include "tools/dump/oplog_replay.h"

namespace quarry::tools::dumping {
namespace {

namespace fs = std::filesystem;

constexpr int kNamespaceNotFound = 26;
constexpr int kNamespaceExists = 48;
constexpr std::size_t kBatchBytes = 8 << 20;
constexpr std::uint32_t kMaxDocumentBytes = 48 * 1024 * 1024;

struct Counters {
  std::atomic<std::uint64_t> restored{0};
  std::atomic<std::uint64_t> failed{0};
  std::int64_t oplog_entries = 0;
};

// Serializes lines from parallel restores.
class Log {
 public:
  explicit Log(std::FILE* stream) : stream_(stream) {}
  void Line(const std::string& text) {
    std::lock_guard lock(mutex_);
    std::fprintf(stream_, "%s\n", text.c_str());
    std::fflush(stream_);
  }

 private:
  std::FILE* stream_;
  std::mutex mutex_;
};

bool Included(const RestoreOptions& options, const std::string& ns) {
  bool included = options.ns_include.empty();
  for (const std::string& pattern : options.ns_include)
    included = included || NamespaceMatches(pattern, ns);
  for (const std::string& pattern : options.ns_exclude)
    included = included && !NamespaceMatches(pattern, ns);
  return included;
}

// Restores one namespace over one connection: create it, insert its documents in batches,
// build its indexes.
class NamespaceRestorer {
 public:
  NamespaceRestorer(client::MongoClient* client, const RestoreOptions& options, std::string db,
                    CollectionMetadata metadata, Log* log, Counters* counters)
      : client_(client),
        options_(options),
        db_(std::move(db)),
        metadata_(std::move(metadata)),
        ns_(db_ + "." + metadata_.name),
        log_(log),
        counters_(counters),
        collection_(client->Collection(db_, metadata_.name)) {}

  Status Prepare() {
    bson_error_t error;
    if (options_.drop && !mongoc_collection_drop_with_opts(collection_.get(), nullptr, &error) &&
        error.code != kNamespaceNotFound) {
      return client::DriverError(error, "dropping " + ns_);
    }
    bson_t command = BSON_INITIALIZER;
    BSON_APPEND_UTF8(&command, "create", metadata_.name.c_str());
    bson_iter_t iter;
    if (bson_iter_init(&iter, metadata_.options.get())) {
      while (bson_iter_next(&iter)) {
        bson_append_iter(&command, bson_iter_key(&iter), static_cast<int>(bson_iter_key_len(&iter)),
                         &iter);
      }
    }
    auto created = client_->RunCommand(db_, command);
    bson_destroy(&command);
    // An existing collection receives the documents as it is, as mongorestore does.
    if (!created.ok() && static_cast<int>(created.status().code()) != kNamespaceExists) {
      return Status(created.status().code(),
                    "creating " + ns_ + ": " + std::string(created.status().reason()));
    }
    return Status::OK();
  }

  Status Add(const bson_t* document) {
    batch_.emplace_back(bson_copy(document));
    batch_bytes_ += document->len;
    if (batch_.size() >= options_.batch_documents || batch_bytes_ >= kBatchBytes) return Flush();
    return Status::OK();
  }

  Status Finish() {
    QUARRY_RETURN_IF_ERROR(Flush());
    if (options_.no_index_restore || metadata_.type != "collection") return Status::OK();
    bson_t command = BSON_INITIALIZER;
    BSON_APPEND_UTF8(&command, "createIndexes", metadata_.name.c_str());
    bson_t indexes;
    BSON_APPEND_ARRAY_BEGIN(&command, "indexes", &indexes);
    std::uint32_t count = 0;
    for (const client::BsonPtr& spec : metadata_.indexes) {
      bson_iter_t name;
      if (bson_iter_init_find(&name, spec.get(), "name") && BSON_ITER_HOLDS_UTF8(&name) &&
          std::strcmp(bson_iter_utf8(&name, nullptr), "_id_") == 0) {
        continue;
      }
      char key_buffer[16];
      const char* key = nullptr;
      bson_uint32_to_string(count++, &key, key_buffer, sizeof key_buffer);
      client::BsonPtr create = IndexSpecForCreate(*spec);
      BSON_APPEND_DOCUMENT(&indexes, key, create.get());
    }
    bson_append_array_end(&command, &indexes);
    Status status = Status::OK();
    if (count > 0) {
      log_->Line("restoring " + std::to_string(count) + " index" + (count == 1 ? "" : "es") +
                 " of " + ns_);
      auto built = client_->RunCommand(db_, command);
      if (!built.ok()) {
        status = Status(built.status().code(), "building the indexes of " + ns_ + ": " +
                                                   std::string(built.status().reason()));
      }
    }
    bson_destroy(&command);
    log_->Line("finished restoring " + ns_ + " (" + std::to_string(restored_) + " document" +
               (restored_ == 1 ? "" : "s") + ", " + std::to_string(failed_) + " failed)");
    return status;
  }

  const std::string& ns() const { return ns_; }

 private:
  Status Flush() {
    if (batch_.empty()) return Status::OK();
    bson_t opts = BSON_INITIALIZER;
    BSON_APPEND_BOOL(&opts, "ordered", options_.stop_on_error);
    mongoc_bulk_operation_t* bulk =
        mongoc_collection_create_bulk_operation_with_opts(collection_.get(), &opts);
    bson_destroy(&opts);
    bson_t insert_opts = BSON_INITIALIZER;
    BSON_APPEND_BOOL(&insert_opts, "validate",
                     false);  // documents as dumped, checked by the server
    bson_error_t error;
    for (const client::BsonPtr& doc : batch_) {
      mongoc_bulk_operation_insert_with_opts(bulk, doc.get(), &insert_opts, &error);
    }
    bson_destroy(&insert_opts);
    bson_t reply;
    const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
    mongoc_bulk_operation_destroy(bulk);
    std::uint64_t write_errors = 0;
    bson_iter_t iter;
    bson_iter_t errors;
    if (bson_iter_init_find(&iter, &reply, "writeErrors") && bson_iter_recurse(&iter, &errors)) {
      while (bson_iter_next(&errors)) {
        ++write_errors;
        bson_iter_t message;
        if (bson_iter_recurse(&errors, &message) && bson_iter_find(&message, "errmsg") &&
            BSON_ITER_HOLDS_UTF8(&message)) {
          log_->Line(ns_ + ": " + bson_iter_utf8(&message, nullptr));
        }
      }
    }
    std::uint64_t inserted = 0;
    if (bson_iter_init_find(&iter, &reply, "nInserted") && BSON_ITER_HOLDS_INT(&iter)) {
      inserted = static_cast<std::uint64_t>(bson_iter_as_int64(&iter));
    }
    bson_destroy(&reply);
    const std::size_t sent = batch_.size();
    batch_.clear();
    batch_bytes_ = 0;
    if (!ok && write_errors == 0) return client::DriverError(error, "inserting into " + ns_);
    restored_ += inserted;
    // Ordered inserts stop at the first failure: the documents after it were not tried.
    failed_ += options_.stop_on_error ? write_errors : sent - inserted;
    counters_->restored += inserted;
    counters_->failed += options_.stop_on_error ? write_errors : sent - inserted;
    if (write_errors > 0 && options_.stop_on_error) {
      return Status(ErrorCode::kOperationFailed,
                    "stopped at the first failed insert into " + ns_ + " (--stopOnError)");
    }
    return Status::OK();
  }

  client::MongoClient* client_;
  const RestoreOptions& options_;
  const std::string db_;
  CollectionMetadata metadata_;
  const std::string ns_;
  Log* log_;
  Counters* counters_;
  client::CollectionPtr collection_;
  std::vector<client::BsonPtr> batch_;
  std::size_t batch_bytes_ = 0;
  std::uint64_t restored_ = 0;
  std::uint64_t failed_ = 0;
};

// One namespace of a dump directory.
struct DirectoryEntry {
  std::string db;
  std::string collection;
  std::string bson_path;      // empty for a view (metadata only)
  std::string metadata_path;  // empty when the dump has none
};

std::string StripSuffix(const std::string& name, const std::string& suffix) {
  return name.size() > suffix.size() && name.ends_with(suffix)
             ? name.substr(0, name.size() - suffix.size())
             : std::string();
}

StatusWith<std::vector<DirectoryEntry>> ScanDirectory(const RestoreOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(options.dir, ec)) {
    return Status(ErrorCode::kBadValue, "no dump directory " + options.dir);
  }
  std::map<std::string, DirectoryEntry> found;
  for (const fs::directory_entry& db_dir : fs::directory_iterator(options.dir, ec)) {
    if (!db_dir.is_directory()) continue;
    const std::string db = UnescapeFileName(db_dir.path().filename().string());
    for (const fs::directory_entry& file : fs::directory_iterator(db_dir.path(), ec)) {
      if (!file.is_regular_file()) continue;
      std::string name = file.path().filename().string();
      const std::string gz = StripSuffix(name, ".gz");
      if (!gz.empty()) name = gz;
      const std::string data = StripSuffix(name, ".bson");
      const std::string meta = StripSuffix(name, ".metadata.json");
      if (data.empty() && meta.empty()) continue;
      const std::string collection = UnescapeFileName(data.empty() ? meta : data);
      DirectoryEntry& entry = found[db + "." + collection];
      entry.db = db;
      entry.collection = collection;
      (data.empty() ? entry.metadata_path : entry.bson_path) = file.path().string();
    }
  }
  if (ec)
    return Status(ErrorCode::kOperationFailed, "cannot read " + options.dir + ": " + ec.message());
  std::vector<DirectoryEntry> entries;
  for (auto& [ns, entry] : found) {
    if (Included(options, ns)) entries.push_back(std::move(entry));
  }
  return entries;
}

StatusWith<std::string> ReadText(const std::string& path) {
  auto source = OpenSource(path);
  if (!source.ok()) return source.status();
  std::string text;
  char buffer[1 << 16];
  while (true) {
    auto n = source.value()->Read(buffer, sizeof buffer);
    if (!n.ok()) return n.status();
    if (n.value() == 0) return text;
    text.append(buffer, n.value());
  }
}

// Streams BSON documents from a file to `apply` (a callable taking const bson_t&).
template <typename Apply>
Status ForEachDocument(const std::string& path, Apply apply) {
  auto source = OpenSource(path);
  if (!source.ok()) return source.status();
  std::string buffer;
  std::uint64_t offset = 0;
  while (true) {
    char length_bytes[4];
    auto more = source.value()->ReadExactly(length_bytes, 4);
    auto damaged = [&](const std::string& why) {
      return Status(ErrorCode::kFailedToParse,
                    path + ": " + why + " at byte " + std::to_string(offset));
    };
    if (!more.ok()) return damaged("the file ends inside a document");
    if (!more.value()) return Status::OK();
    std::uint32_t length = 0;
    for (int i = 3; i >= 0; --i)
      length = (length << 8) | static_cast<unsigned char>(length_bytes[i]);
    if (length < 5 || length > kMaxDocumentBytes)
      return damaged("a document has an impossible length");
    buffer.resize(length);
    std::memcpy(buffer.data(), length_bytes, 4);
    auto rest = source.value()->ReadExactly(buffer.data() + 4, length - 4);
    if (!rest.ok() || !rest.value()) return damaged("the file ends inside a document");
    bson_t doc;
    if (!bson_init_static(&doc, reinterpret_cast<const std::uint8_t*>(buffer.data()), length) ||
        !bson_validate(&doc, BSON_VALIDATE_NONE, nullptr)) {
      return damaged("a document is not valid BSON");
    }
    QUARRY_RETURN_IF_ERROR(apply(doc));
    offset += length;
  }
}

// Streams the documents of a .bson file into `restorer`.
Status RestoreFile(const std::string& path, NamespaceRestorer* restorer) {
  return ForEachDocument(path, [&](const bson_t& doc) { return restorer->Add(&doc); });
}

Status RestoreDirectoryEntry(client::MongoClient& client, const RestoreOptions& options,
                             const DirectoryEntry& entry, Log* log, Counters* counters) {
  CollectionMetadata metadata;
  metadata.name = entry.collection;
  if (!entry.metadata_path.empty()) {
    auto text = ReadText(entry.metadata_path);
    if (!text.ok()) return text.status();
    auto parsed = ParseMetadataJson(text.value(), entry.collection);
    if (!parsed.ok()) {
      return Status(parsed.status().code(),
                    entry.metadata_path + ": " + std::string(parsed.status().reason()));
    }
    metadata = std::move(parsed.value());
    metadata.name = entry.collection;  // the file's name decides, as for mongorestore
  }
  NamespaceRestorer restorer(&client, options, entry.db, std::move(metadata), log, counters);
  log->Line("restoring " + restorer.ns() +
            (entry.bson_path.empty() ? "" : " from " + entry.bson_path));
  QUARRY_RETURN_IF_ERROR(restorer.Prepare());
  Status read = entry.bson_path.empty() ? Status::OK() : RestoreFile(entry.bson_path, &restorer);
  Status finished = restorer.Finish();  // what was read before damage is still written
  return !read.ok() ? read : finished;
}

Status RestoreDirectory(const RestoreOptions& options, Log* log, Counters* counters) {
  auto entries = ScanDirectory(options);
  if (!entries.ok()) return entries.status();
  std::deque<DirectoryEntry> queue(entries.value().begin(), entries.value().end());
  std::mutex mutex;
  Status first_error = Status::OK();
  const int workers = std::min(options.parallel_collections,
                               static_cast<int>(std::max<std::size_t>(queue.size(), 1)));
  std::vector<std::thread> threads;
  for (int worker = 0; worker < workers; ++worker) {
    threads.emplace_back([&] {
      auto connected =
          client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-restore"});
      while (true) {
        DirectoryEntry entry;
        {
          std::lock_guard lock(mutex);
          if (queue.empty() || !first_error.ok()) return;
          if (!connected.ok()) {
            first_error = connected.status();
            return;
          }
          entry = std::move(queue.front());
          queue.pop_front();
        }
        Status restored = RestoreDirectoryEntry(*connected.value(), options, entry, log, counters);
        if (!restored.ok()) {
          std::lock_guard lock(mutex);
          if (first_error.ok()) first_error = restored;
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return first_error;
}

Status ReplayDirectoryOplog(client::MongoClient& client, const RestoreOptions& options, Log* log,
                            Counters* counters) {
  std::string path = (fs::path(options.dir) / "oplog.bson").string();
  std::error_code ec;
  if (!fs::exists(path, ec) && fs::exists(path + ".gz", ec)) path += ".gz";
  if (!fs::exists(path, ec))
    return Status(ErrorCode::kBadValue, "--oplogReplay: the dump has no oplog.bson");
  OplogReplayer replayer(&client, [&](const std::string& ns) { return Included(options, ns); });
  Status replayed =
      ForEachDocument(path, [&](const bson_t& entry) { return replayer.Apply(entry); });
  counters->oplog_entries = replayer.applied();
  log->Line("replayed " + std::to_string(replayer.applied()) + " oplog entries");
  return replayed;
}

Status RestoreArchive(client::MongoClient& client, const RestoreOptions& options, Log* log,
                      Counters* counters) {
  auto source = OpenSource(options.archive_path);
  if (!source.ok()) return source.status();
  ArchiveReader reader(source.value().get());
  ArchiveHeader header;
  std::vector<NamespaceMetadata> prelude;
  QUARRY_RETURN_IF_ERROR(reader.ReadPrelude(&header, &prelude));
  std::map<std::string, std::unique_ptr<NamespaceRestorer>> restorers;
  for (const NamespaceMetadata& ns : prelude) {
    const std::string name = ns.db + "." + ns.collection;
    if (!Included(options, name)) continue;
    auto metadata = ParseMetadataJson(ns.metadata, ns.collection);
    if (!metadata.ok()) {
      return Status(metadata.status().code(), "the archive's metadata of " + name + ": " +
                                                  std::string(metadata.status().reason()));
    }
    metadata.value().name = ns.collection;
    auto restorer = std::make_unique<NamespaceRestorer>(&client, options, ns.db,
                                                        std::move(metadata.value()), log, counters);
    log->Line("restoring " + name + " from the archive");
    QUARRY_RETURN_IF_ERROR(restorer->Prepare());
    restorers[name] = std::move(restorer);
  }
  OplogReplayer replayer(&client, [&](const std::string& ns) { return Included(options, ns); });
  bool saw_oplog = false;
  ArchiveReader::Event event;
  while (true) {
    auto next = reader.Next(&event);
    if (!next.ok()) {
      // Write what arrived before the damage, then report it.
      for (auto& [name, restorer] : restorers) static_cast<void>(restorer->Finish());
      return next.status();
    }
    if (!next.value()) break;
    if (event.db.empty() && event.collection == "oplog") {
      saw_oplog = true;
      if (!options.oplog_replay || event.kind != ArchiveReader::Event::kDocument) continue;
      if (!restorers.empty()) {
        return Status(ErrorCode::kFailedToParse,
                      "the archive's oplog comes before the end of " + restorers.begin()->first);
      }
      QUARRY_RETURN_IF_ERROR(replayer.Apply(*event.document));
      counters->oplog_entries = replayer.applied();
      continue;
    }
    auto found = restorers.find(event.db + "." + event.collection);
    if (found == restorers.end()) continue;  // excluded
    if (event.kind == ArchiveReader::Event::kDocument) {
      QUARRY_RETURN_IF_ERROR(found->second->Add(event.document));
    } else {
      QUARRY_RETURN_IF_ERROR(found->second->Finish());
      restorers.erase(found);
    }
  }
  if (options.oplog_replay) {
    if (!saw_oplog) return Status(ErrorCode::kBadValue, "--oplogReplay: the archive has no oplog");
    log->Line("replayed " + std::to_string(replayer.applied()) + " oplog entries");
  }
  return Status::OK();
}

}  // namespace

StatusWith<RestoreResult> RunRestore(const RestoreOptions& options, std::FILE* log_stream) {
  if (options.parallel_collections < 1) {
    return Status(ErrorCode::kBadValue, "--numParallelCollections must be at least 1");
  }
  if (!options.archive) {
    std::error_code ec;
    if (!fs::is_directory(options.dir, ec))
      return Status(ErrorCode::kBadValue, "no dump directory " + options.dir);
  }
  auto connected = client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-restore"});
  if (!connected.ok()) return connected.status();
  Log log(log_stream);
  Counters counters;
  RestoreResult result;
  result.error = options.archive ? RestoreArchive(*connected.value(), options, &log, &counters)
                                 : RestoreDirectory(options, &log, &counters);
  if (result.error.ok() && options.oplog_replay && !options.archive) {
    result.error = ReplayDirectoryOplog(*connected.value(), options, &log, &counters);
  }
  result.oplog_entries = counters.oplog_entries;
  result.restored = counters.restored.load();
  result.failed = counters.failed.load();
  return result;
}

}  // namespace quarry::tools::dumping
