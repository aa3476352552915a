#include "tools/dump/dump_run.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "tools/client/mongo_client.h"
#include "tools/dump/archive.h"
#include "tools/dump/byte_stream.h"
#include "tools/dump/collection_metadata.h"
#include "tools/dump/oplog_capture.h"
#include "tools/dump/parallel_jobs.h"
#include "tools/dump/source_catalog.h"

namespace quarry::tools::dumping {
namespace {

constexpr std::size_t kSegmentBytes = 1 << 20;

using client::CursorPtr;

// Where the documents of one collection go: a .bson file, or archive segments.
class DocumentOutput {
 public:
  virtual ~DocumentOutput() = default;
  virtual Status Add(const bson_t* document) = 0;
  virtual Status Finish() = 0;
};

class FileOutput : public DocumentOutput {
 public:
  explicit FileOutput(std::unique_ptr<ByteSink> sink) : sink_(std::move(sink)) {}
  Status Add(const bson_t* document) override {
    return sink_->Write(bson_get_data(document), document->len);
  }
  Status Finish() override { return sink_->Close(); }

 private:
  std::unique_ptr<ByteSink> sink_;
};

class ArchiveOutput : public DocumentOutput {
 public:
  ArchiveOutput(ArchiveWriter* archive, std::string db, std::string collection)
      : archive_(archive), db_(std::move(db)), collection_(std::move(collection)) {}
  Status Add(const bson_t* document) override {
    segment_.append(reinterpret_cast<const char*>(bson_get_data(document)), document->len);
    if (segment_.size() < kSegmentBytes) return Status::OK();
    Status written = archive_->WriteSegment(db_, collection_, segment_);
    segment_.clear();
    return written;
  }
  Status Finish() override {
    QUARRY_RETURN_IF_ERROR(archive_->WriteSegment(db_, collection_, segment_));
    segment_.clear();
    return archive_->EndNamespace(db_, collection_);
  }

 private:
  ArchiveWriter* archive_;
  const std::string db_;
  const std::string collection_;
  std::string segment_;
};

std::string Suffix(bool gzip) { return gzip ? ".gz" : ""; }

Status WriteTextFile(const std::string& path, const std::string& text, bool gzip) {
  auto sink = OpenSink(path, gzip);
  if (!sink.ok()) return sink.status();
  QUARRY_RETURN_IF_ERROR(sink.value()->Write(text.data(), text.size()));
  return sink.value()->Close();
}

// Dumps one collection's documents (and, to a directory, its metadata file). Returns the count.
StatusWith<std::int64_t> DumpCollection(client::MongoClient& client, const DumpOptions& options,
                                        const SourceCollection& target, const bson_t* filter,
                                        ArchiveWriter* archive, std::FILE* log,
                                        std::mutex* log_mutex) {
  const std::string ns = target.db + "." + target.metadata.name;
  const std::string base =
      (std::filesystem::path(options.out) / target.db / EscapeFileName(target.metadata.name))
          .string();
  if (archive == nullptr) {
    QUARRY_RETURN_IF_ERROR(WriteTextFile(base + ".metadata.json" + Suffix(options.gzip),
                                         MetadataJson(target.metadata), options.gzip));
  }
  if (target.metadata.type != "collection") {
    // A view has a definition and no documents of its own.
    if (archive != nullptr)
      QUARRY_RETURN_IF_ERROR(archive->EndNamespace(target.db, target.metadata.name));
    return std::int64_t{0};
  }
  std::unique_ptr<DocumentOutput> output;
  const std::string path =
      archive != nullptr ? "the archive" : base + ".bson" + Suffix(options.gzip);
  {
    std::lock_guard lock(*log_mutex);
    std::fprintf(log, "writing %s to %s\n", ns.c_str(), path.c_str());
  }
  if (archive != nullptr) {
    output = std::make_unique<ArchiveOutput>(archive, target.db, target.metadata.name);
  } else {
    auto sink = OpenSink(path, options.gzip);
    if (!sink.ok()) return sink.status();
    output = std::make_unique<FileOutput>(std::move(sink.value()));
  }
  client::CollectionPtr collection = client.Collection(target.db, target.metadata.name);
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_INT32(&opts, "batchSize", 1000);
  bson_t empty = BSON_INITIALIZER;
  CursorPtr cursor(mongoc_collection_find_with_opts(
      collection.get(), filter != nullptr ? filter : &empty, &opts, nullptr));
  bson_destroy(&opts);
  bson_destroy(&empty);
  std::int64_t count = 0;
  const bson_t* document = nullptr;
  while (mongoc_cursor_next(cursor.get(), &document)) {
    QUARRY_RETURN_IF_ERROR(output->Add(document));
    ++count;
  }
  bson_error_t error;
  if (mongoc_cursor_error(cursor.get(), &error)) return client::DriverError(error, "reading " + ns);
  QUARRY_RETURN_IF_ERROR(output->Finish());
  std::lock_guard lock(*log_mutex);
  std::fprintf(log, "done dumping %s (%lld document%s)\n", ns.c_str(),
               static_cast<long long>(count), count == 1 ? "" : "s");
  return count;
}

// The changes committed during the dump, as <out>/oplog.bson or the archive's namespace "oplog"
// (database ""), where mongodump puts them.
StatusWith<std::int64_t> DumpOplog(OplogCapture& oplog, const DumpOptions& options,
                                   ArchiveWriter* archive) {
  std::unique_ptr<DocumentOutput> output;
  if (archive != nullptr) {
    output = std::make_unique<ArchiveOutput>(archive, "", "oplog");
  } else {
    auto sink = OpenSink(
        (std::filesystem::path(options.out) / "oplog.bson").string() + Suffix(options.gzip),
        options.gzip);
    if (!sink.ok()) return sink.status();
    output = std::make_unique<FileOutput>(std::move(sink.value()));
  }
  struct ToOutput : OplogEntrySink {
    explicit ToOutput(DocumentOutput* output) : output(output) {}
    Status Write(const bson_t& entry) override { return output->Add(&entry); }
    DocumentOutput* output;
  } sink(output.get());
  auto written = oplog.Drain(&sink);
  if (!written.ok()) return written.status();
  QUARRY_RETURN_IF_ERROR(output->Finish());
  return written.value();
}

}  // namespace

std::string EscapeFileName(const std::string& name) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string escaped;
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/' || c == '%' || c == '\\' || byte < 0x20) {
      escaped.push_back('%');
      escaped.push_back(kDigits[byte >> 4]);
      escaped.push_back(kDigits[byte & 0xF]);
    } else {
      escaped.push_back(c);
    }
  }
  return escaped;
}

std::string UnescapeFileName(const std::string& name) {
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string plain;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '%' && i + 2 < name.size() && hex(name[i + 1]) >= 0 && hex(name[i + 2]) >= 0) {
      plain.push_back(static_cast<char>(hex(name[i + 1]) * 16 + hex(name[i + 2])));
      i += 2;
    } else {
      plain.push_back(name[i]);
    }
  }
  return plain;
}

Status ValidateDumpOptions(const DumpOptions& options) {
  if (!options.collection.empty() && options.database.empty()) {
    return Status(ErrorCode::kBadValue, "--collection needs --db");
  }
  if (!options.query.empty() && options.collection.empty()) {
    return Status(ErrorCode::kBadValue, "--query needs --db and --collection");
  }
  if (!options.exclude_collections.empty() && options.database.empty()) {
    return Status(ErrorCode::kBadValue, "--excludeCollection needs --db");
  }
  if (options.oplog && !options.database.empty()) {
    return Status(ErrorCode::kBadValue, "--oplog is only for dumps of the whole server (no --db)");
  }
  if (options.parallel_collections < 1)
    return Status(ErrorCode::kBadValue, "--numParallelCollections must be at least 1");
  if (!options.query.empty()) {
    bson_error_t error;
    bson_t* filter = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(options.query.data()),
                                        static_cast<ssize_t>(options.query.size()), &error);
    if (filter == nullptr)
      return Status(ErrorCode::kBadValue,
                    std::string("--query is not Extended JSON: ") + error.message);
    bson_destroy(filter);
  }
  return Status::OK();
}

StatusWith<DumpResult> RunDump(const DumpOptions& options, std::FILE* log) {
  QUARRY_RETURN_IF_ERROR(ValidateDumpOptions(options));
  auto connected = client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-dump"});
  if (!connected.ok()) return connected.status();
  client::MongoClient& client = *connected.value();
  // The changes to replay start before the first collection is read.
  std::unique_ptr<OplogCapture> oplog;
  if (options.oplog) {
    auto started = OplogCapture::Start(options.uri);
    if (!started.ok()) return started.status();
    oplog = std::move(started.value());
  }

  auto listed = ListSourceCollections(
      client, {options.database, options.collection, options.exclude_collections});
  if (!listed.ok()) return listed.status();
  std::vector<SourceCollection>& targets = listed.value();
  if (!options.collection.empty() && targets.empty()) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "no collection " + options.database + "." + options.collection + " to dump");
  }
  client::BsonPtr filter(bson_new());
  if (!options.query.empty()) {
    bson_error_t error;
    filter = client::BsonPtr(
        bson_new_from_json(reinterpret_cast<const std::uint8_t*>(options.query.data()),
                           static_cast<ssize_t>(options.query.size()), &error));
  }

  std::unique_ptr<ByteSink> archive_sink;
  std::unique_ptr<ArchiveWriter> archive;
  if (options.archive) {
    auto sink = OpenSink(options.archive_path, options.gzip);
    if (!sink.ok()) return sink.status();
    archive_sink = std::move(sink.value());
    archive = std::make_unique<ArchiveWriter>(archive_sink.get());
    ArchiveHeader header;
    header.concurrent_collections = options.parallel_collections;
    header.server_version = ServerVersion(client);
    header.tool_version = "quarry dump";
    std::vector<NamespaceMetadata> prelude;
    for (const SourceCollection& target : targets) {
      prelude.push_back(
          {target.db, target.metadata.name, MetadataJson(target.metadata), target.size});
    }
    QUARRY_RETURN_IF_ERROR(archive->WritePrelude(header, prelude));
  }

  // Each thread dumps collections over its own connection.
  std::mutex mutex;  // guards result and the log
  DumpResult result;
  QUARRY_RETURN_IF_ERROR(RunInParallel(
      std::move(targets), options.parallel_collections,
      [&] { return client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-dump"}); },
      [&](std::unique_ptr<client::MongoClient>& own, SourceCollection& target) -> Status {
        auto dumped =
            DumpCollection(*own, options, target, options.query.empty() ? nullptr : filter.get(),
                           archive.get(), log, &mutex);
        if (!dumped.ok()) return dumped.status();
        std::lock_guard lock(mutex);
        result.dumped.emplace_back(target.db + "." + target.metadata.name, dumped.value());
        return Status::OK();
      }));
  if (oplog != nullptr) {
    auto written = DumpOplog(*oplog, options, archive.get());
    if (!written.ok()) return written.status();
    result.oplog_entries = written.value();
    std::fprintf(log, "captured %lld oplog entr%s\n", static_cast<long long>(written.value()),
                 written.value() == 1 ? "y" : "ies");
  }
  if (archive_sink != nullptr) QUARRY_RETURN_IF_ERROR(archive_sink->Close());
  return result;
}

}  // namespace quarry::tools::dumping
