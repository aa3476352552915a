#include "tools/dump/restore_run.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "tools/client/mongo_client.h"
#include "tools/dump/archive.h"
#include "tools/dump/byte_stream.h"
#include "tools/dump/collection_metadata.h"
#include "tools/dump/collection_writer.h"
#include "tools/dump/dump_run.h"
#include "tools/dump/oplog_replay.h"
#include "tools/dump/parallel_jobs.h"

namespace quarry::tools::dumping {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kMaxDocumentBytes = 48 * 1024 * 1024;

WriterOptions WriterOptionsOf(const RestoreOptions& options) {
  return {.drop = options.drop,
          .stop_on_error = options.stop_on_error,
          .build_indexes = !options.no_index_restore,
          .batch_documents = options.batch_documents};
}

bool Included(const RestoreOptions& options, const std::string& ns) {
  // mongodump's admin.system.version holds the source's authorization schema and feature
  // compatibility version, which are the target's own: mongorestore only reads it.
  if (ns == "admin.system.version") return false;
  bool included = options.ns_include.empty();
  for (const std::string& pattern : options.ns_include)
    included = included || NamespaceMatches(pattern, ns);
  for (const std::string& pattern : options.ns_exclude)
    included = included && !NamespaceMatches(pattern, ns);
  return included;
}

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
Status RestoreFile(const std::string& path, CollectionWriter* restorer) {
  return ForEachDocument(path, [&](const bson_t& doc) { return restorer->Add(&doc); });
}

Status RestoreDirectoryEntry(client::MongoClient& client, const RestoreOptions& options,
                             const DirectoryEntry& entry, LineLog* log, WriteCounters* counters) {
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
  CollectionWriter restorer(&client, WriterOptionsOf(options), entry.db, std::move(metadata), log,
                            counters);
  log->Line("restoring " + restorer.ns() +
            (entry.bson_path.empty() ? "" : " from " + entry.bson_path));
  QUARRY_RETURN_IF_ERROR(restorer.Prepare());
  Status read = entry.bson_path.empty() ? Status::OK() : RestoreFile(entry.bson_path, &restorer);
  Status finished = restorer.Finish();  // what was read before damage is still written
  return !read.ok() ? read : finished;
}

Status RestoreDirectory(const RestoreOptions& options, LineLog* log, WriteCounters* counters) {
  auto entries = ScanDirectory(options);
  if (!entries.ok()) return entries.status();
  return RunInParallel(
      std::move(entries.value()), options.parallel_collections,
      [&] {
        return client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-restore"});
      },
      [&](std::unique_ptr<client::MongoClient>& connection, DirectoryEntry& entry) {
        return RestoreDirectoryEntry(*connection, options, entry, log, counters);
      });
}

Status ReplayDirectoryOplog(client::MongoClient& client, const RestoreOptions& options,
                            LineLog* log, WriteCounters* counters) {
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

Status RestoreArchive(client::MongoClient& client, const RestoreOptions& options, LineLog* log,
                      WriteCounters* counters) {
  auto source = OpenSource(options.archive_path);
  if (!source.ok()) return source.status();
  ArchiveReader reader(source.value().get());
  ArchiveHeader header;
  std::vector<NamespaceMetadata> prelude;
  QUARRY_RETURN_IF_ERROR(reader.ReadPrelude(&header, &prelude));
  std::map<std::string, std::unique_ptr<CollectionWriter>> restorers;
  for (const NamespaceMetadata& ns : prelude) {
    const std::string name = ns.db + "." + ns.collection;
    if (!Included(options, name)) continue;
    auto metadata = ParseMetadataJson(ns.metadata, ns.collection);
    if (!metadata.ok()) {
      return Status(metadata.status().code(), "the archive's metadata of " + name + ": " +
                                                  std::string(metadata.status().reason()));
    }
    metadata.value().name = ns.collection;
    auto restorer = std::make_unique<CollectionWriter>(&client, WriterOptionsOf(options), ns.db,
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
  LineLog log(log_stream);
  WriteCounters counters;
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
