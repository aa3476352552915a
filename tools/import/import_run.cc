#include "tools/import/import_run.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "tools/client/batch_queue.h"
#include "tools/import/csv_record_reader.h"
#include "tools/import/json_document_reader.h"
#include "tools/import/json_to_bson.h"

namespace quarry::tools::importing {
namespace {

constexpr std::size_t kMaxDocumentBytes = 16 * 1024 * 1024;
// A JSON document may spell its 16 MiB of BSON with more text (escapes, spaces, digits).
constexpr std::size_t kMaxDocumentText = 4 * kMaxDocumentBytes;
constexpr int kNamespaceNotFound = 26;

Status BadOption(const std::string& message) { return Status(ErrorCode::kBadValue, message); }

std::string Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return std::string(text);
}

std::string Unquote(const std::string& text) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

bool IsInteger(const std::string& text) {
  if (text.empty()) return false;
  std::size_t start = text[0] == '-' ? 1 : 0;
  return start < text.size() && text.find_first_not_of("0123456789", start) == std::string::npos;
}

// The field names of a --fieldFile: one per line, blank lines ignored.
StatusWith<std::vector<std::string>> ReadFieldFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return BadOption("cannot read --fieldFile " + path);
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    std::string name = Trim(line);
    if (!name.empty()) names.push_back(std::move(name));
  }
  if (names.empty()) return BadOption("--fieldFile " + path + " names no fields");
  return names;
}

// Where documents come from: JSON documents or CSV/TSV records, converted to BSON one by one.
class DocumentSource {
 public:
  virtual ~DocumentSource() = default;
  // The next document into `out` (empty), its line, and, for a document that cannot be read
  // but does not end the input, a reason (then `out` is to be discarded). False at the end;
  // an error status ends the input.
  virtual StatusWith<bool> Next(bson_t* out, std::int64_t* line, std::string* reason,
                                bool* stop) = 0;
  virtual std::uint64_t bytes_read() const = 0;
};

class JsonSource : public DocumentSource {
 public:
  JsonSource(std::FILE* input, JsonFraming framing) : reader_(input, framing, kMaxDocumentText) {}
  StatusWith<bool> Next(bson_t* out, std::int64_t* line, std::string* reason, bool*) override {
    JsonDocumentText text;
    auto found = reader_.Next(&text);
    if (!found.ok() || !found.value()) return found;
    *line = text.line;
    Status converted = converter_.Convert(text.data, text.size, text.readable, out);
    if (!converted.ok()) *reason = std::string(converted.reason());
    return true;
  }
  std::uint64_t bytes_read() const override { return reader_.bytes_read(); }

 private:
  JsonDocumentReader reader_;
  JsonToBson converter_;
};

class DelimitedSource : public DocumentSource {
 public:
  DelimitedSource(std::FILE* input, Delimited format) : reader_(input, format, kMaxDocumentText) {}

  // Reads the header line when the names come from it, then builds the converter.
  Status Start(const ImportOptions& options) {
    std::vector<std::string> names = options.fields;
    if (!options.field_file.empty()) {
      auto read = ReadFieldFile(options.field_file);
      if (!read.ok()) return read.status();
      names = std::move(read.value());
    }
    if (options.header_line) {
      std::int64_t line = 0;
      auto found = reader_.Next(&names, &line);
      if (!found.ok()) return found.status();
      if (!found.value()) return BadOption("--headerline: the input is empty");
      for (std::string& name : names) name = Trim(name);
    }
    auto columns = ParseColumns(names, options.columns_have_types);
    if (!columns.ok()) return columns.status();
    converter_ = std::make_unique<ColumnConverter>(std::move(columns.value()),
                                                   options.ignore_blanks, options.parse_grace);
    return Status::OK();
  }

  StatusWith<bool> Next(bson_t* out, std::int64_t* line, std::string* reason, bool* stop) override {
    auto found = reader_.Next(&values_, line);
    if (!found.ok() || !found.value()) return found;
    RowOutcome outcome = converter_->Convert(values_, out);
    if (outcome.kind != RowOutcome::kConverted) *reason = outcome.reason;
    *stop = outcome.stop_import;
    return true;
  }
  std::uint64_t bytes_read() const override { return reader_.bytes_read(); }

 private:
  CsvRecordReader reader_;
  std::unique_ptr<ColumnConverter> converter_;
  std::vector<std::string> values_;
};

// What the reader and the workers share: counts, the first error, the error stream.
class ImportState {
 public:
  ImportState(std::FILE* errors, std::string source)
      : errors_(errors), source_(std::move(source)) {}

  void ReportDocument(std::int64_t line, const std::string& reason) {
    std::lock_guard lock(mutex_);
    ++failed_;
    std::fprintf(errors_, "%s:%lld: %s\n", source_.c_str(), static_cast<long long>(line),
                 reason.c_str());
    std::fflush(errors_);
  }
  // An error in the input itself (its framing, a read error): nothing after it is read.
  void ReportInput(const std::string& reason) {
    std::lock_guard lock(mutex_);
    ++failed_;
    std::fprintf(errors_, "%s: %s\n", source_.c_str(), reason.c_str());
    std::fflush(errors_);
  }
  void AddImported(std::uint64_t count) { imported_.fetch_add(count); }
  void End(Status error) {
    std::lock_guard lock(mutex_);
    if (error_.ok()) error_ = std::move(error);
    ended_.store(true);
  }
  bool ended() const { return ended_.load(); }

  ImportResult Result() {
    std::lock_guard lock(mutex_);
    ImportResult result;
    result.imported = imported_.load();
    result.failed = failed_;
    result.error = error_;
    return result;
  }

 private:
  std::FILE* errors_;
  const std::string source_;
  std::mutex mutex_;
  std::atomic<std::uint64_t> imported_{0};
  std::uint64_t failed_ = 0;
  Status error_ = Status::OK();
  std::atomic<bool> ended_{false};
};

void RunWorker(client::MongoClient* connection, const ImportOptions& options,
               const WriteSettings& settings, client::BatchQueue<ImportBatch>* queue,
               ImportState* state) {
  client::CollectionPtr collection = connection->Collection(options.database, options.collection);
  while (std::optional<ImportBatch> batch = queue->Pop()) {
    BatchOutcome outcome = WriteImportBatch(collection.get(), settings, *batch);
    state->AddImported(outcome.succeeded);
    for (const auto& [index, reason] : outcome.errors)
      state->ReportDocument(batch->lines[index], reason);
    if (!outcome.fatal.ok()) {
      state->End(outcome.fatal);
      queue->Close(/*discard=*/true);
    } else if (outcome.stopped) {
      state->End(Status(ErrorCode::kOperationFailed, "stopped at the first error (--stopOnError)"));
      queue->Close(/*discard=*/true);
    }
  }
}

// "123456 docs 45.6 MB 98000/s ETA 12s" (no ETA when the input's size is unknown).
std::string ProgressNote(std::uint64_t documents, double bytes, std::uint64_t total_bytes,
                         std::chrono::steady_clock::time_point started) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char text[128];
  int n = std::snprintf(text, sizeof text, "%llu docs %.1f MB %.0f/s",
                        static_cast<unsigned long long>(documents), bytes / 1e6,
                        seconds > 0 ? static_cast<double>(documents) / seconds : 0.0);
  if (total_bytes > 0 && bytes > 0 && n > 0 && static_cast<std::size_t>(n) < sizeof text) {
    const double left = seconds * (static_cast<double>(total_bytes) - bytes) / bytes;
    std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), " ETA %.0fs",
                  std::max(left, 0.0));
  }
  return text;
}

StatusWith<std::FILE*> OpenInput(const std::string& file) {
  if (file.empty() || file == "-") return stdin;
  std::FILE* input = std::fopen(file.c_str(), "rb");
  if (input == nullptr) return BadOption("cannot open " + file + ": " + std::strerror(errno));
  return input;
}

}  // namespace

StatusWith<client::BsonPtr> ParseWriteConcern(const std::string& text) {
  const std::string trimmed = Trim(text);
  client::BsonPtr concern(bson_new());
  bson_t* doc = const_cast<bson_t*>(concern.get());
  auto append_w = [&](const std::string& value) {
    if (IsInteger(value)) {
      BSON_APPEND_INT32(doc, "w", std::stoi(value));
    } else {
      BSON_APPEND_UTF8(doc, "w", value.c_str());
    }
  };
  if (trimmed.empty() || trimmed.front() != '{') {
    if (trimmed.empty()) return BadOption("--writeConcern is empty");
    append_w(Unquote(trimmed));
    return concern;
  }
  if (trimmed.back() != '}') return BadOption("--writeConcern: a document must end with '}'");
  std::string body = trimmed.substr(1, trimmed.size() - 2);
  std::size_t pos = 0;
  while (pos <= body.size()) {
    std::size_t comma = body.find(',', pos);
    if (comma == std::string::npos) comma = body.size();
    const std::string member = Trim(std::string_view(body).substr(pos, comma - pos));
    pos = comma + 1;
    if (member.empty()) {
      if (comma == body.size()) break;
      return BadOption("--writeConcern: an empty member in " + trimmed);
    }
    const std::size_t colon = member.find(':');
    if (colon == std::string::npos)
      return BadOption("--writeConcern: expected key: value, got " + member);
    const std::string key = Unquote(Trim(std::string_view(member).substr(0, colon)));
    const std::string value = Unquote(Trim(std::string_view(member).substr(colon + 1)));
    if (key == "w") {
      append_w(value);
    } else if (key == "j" || key == "fsync") {
      if (value != "true" && value != "false")
        return BadOption("--writeConcern: " + key + " must be true or false");
      BSON_APPEND_BOOL(doc, "j", value == "true");
    } else if (key == "wtimeout" || key == "wtimeoutMS") {
      if (!IsInteger(value))
        return BadOption("--writeConcern: wtimeout must be a number of milliseconds");
      BSON_APPEND_INT64(doc, "wtimeout", std::stoll(value));
    } else {
      return BadOption("--writeConcern: unknown option " + key + " (w, j, wtimeout)");
    }
  }
  return concern;
}

Status ResolveImportOptions(ImportOptions* options) {
  const bool delimited = options->type != InputType::kJson;
  const int name_sources =
      int{options->header_line} + int{!options->fields.empty()} + int{!options->field_file.empty()};
  if (delimited && name_sources != 1) {
    return BadOption(name_sources == 0
                         ? "CSV and TSV need the field names: --headerline, --fields or --fieldFile"
                         : "give only one of --headerline, --fields and --fieldFile");
  }
  if (!delimited && name_sources != 0)
    return BadOption("--headerline, --fields and --fieldFile are for CSV and TSV");
  if (!delimited && (options->columns_have_types || options->ignore_blanks ||
                     options->parse_grace != ParseGrace::kStop)) {
    return BadOption("--columnsHaveTypes, --ignoreBlanks and --parseGrace are for CSV and TSV");
  }
  if (delimited && options->json_array) return BadOption("--jsonArray is for JSON input");
  if (options->insertion_workers < 1) return BadOption("--numInsertionWorkers must be at least 1");
  if (options->maintain_insertion_order) options->insertion_workers = 1;
  if (options->upsert_fields.empty()) options->upsert_fields = {"_id"};
  if (options->database.empty()) {
    bson_error_t error;
    mongoc_uri_t* uri = mongoc_uri_new_with_error(options->uri.c_str(), &error);
    if (uri == nullptr) return BadOption(std::string("invalid --uri: ") + error.message);
    const char* database = mongoc_uri_get_database(uri);
    options->database = database != nullptr ? database : "test";
    mongoc_uri_destroy(uri);
  }
  if (options->collection.empty()) {
    if (options->file.empty() || options->file == "-") {
      return BadOption("--collection is needed when the input is stdin");
    }
    options->collection = std::filesystem::path(options->file).stem().string();
  }
  if (!options->write_concern.empty()) {
    auto concern = ParseWriteConcern(options->write_concern);
    if (!concern.ok()) return concern.status();
  }
  return Status::OK();
}

StatusWith<ImportResult> RunImport(const ImportOptions& options, client::ProgressSink& progress,
                                   std::FILE* errors) {
  const auto started = std::chrono::steady_clock::now();
  std::optional<client::BsonPtr> write_concern;
  if (!options.write_concern.empty()) {
    auto concern = ParseWriteConcern(options.write_concern);
    if (!concern.ok()) return concern.status();
    write_concern.emplace(std::move(concern.value()));
  }
  auto opened = OpenInput(options.file);
  if (!opened.ok()) return opened.status();
  std::FILE* input = opened.value();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(input == stdin ? nullptr : input,
                                                         &std::fclose);
  std::uint64_t total_bytes = 0;
  struct stat info {};
  if (fstat(fileno(input), &info) == 0 && S_ISREG(info.st_mode))
    total_bytes = static_cast<std::uint64_t>(info.st_size);

  std::unique_ptr<DocumentSource> source;
  if (options.type == InputType::kJson) {
    source = std::make_unique<JsonSource>(
        input, options.json_array ? JsonFraming::kArray : JsonFraming::kDocuments);
  } else {
    auto delimited = std::make_unique<DelimitedSource>(
        input, options.type == InputType::kCsv ? Delimited::kCsv : Delimited::kTsv);
    QUARRY_RETURN_IF_ERROR(delimited->Start(options));
    source = std::move(delimited);
  }

  std::vector<std::unique_ptr<client::MongoClient>> connections;
  for (int worker = 0; worker < options.insertion_workers; ++worker) {
    auto connected =
        client::MongoClient::Connect({.uri = options.uri, .app_name = "quarry-import"});
    if (!connected.ok()) return connected.status();
    connections.push_back(std::move(connected.value()));
  }
  if (options.drop) {
    client::CollectionPtr collection =
        connections[0]->Collection(options.database, options.collection);
    bson_error_t error;
    if (!mongoc_collection_drop_with_opts(collection.get(), nullptr, &error) &&
        error.code != kNamespaceNotFound) {
      return client::DriverError(error, "dropping " + options.database + "." + options.collection);
    }
  }

  WriteSettings settings;
  settings.mode = options.mode;
  settings.upsert_fields = options.upsert_fields;
  settings.ordered = options.maintain_insertion_order;
  settings.stop_on_error = options.stop_on_error;
  settings.write_concern = write_concern ? write_concern->get() : nullptr;

  ImportState state(errors, options.file.empty() || options.file == "-" ? "stdin" : options.file);
  client::BatchQueue<ImportBatch> queue(2 * static_cast<std::size_t>(options.insertion_workers));
  std::vector<std::thread> workers;
  for (auto& connection : connections) {
    workers.emplace_back(RunWorker, connection.get(), std::cref(options), std::cref(settings),
                         &queue, &state);
  }

  progress.Begin("import", static_cast<double>(total_bytes));
  ImportBatch batch;
  std::size_t batch_bytes = 0;
  std::uint64_t read = 0;  // documents handed to the workers
  auto flush = [&] {
    if (batch.documents.empty()) return true;
    batch_bytes = 0;
    read += batch.documents.size();
    const bool pushed = queue.Push(std::exchange(batch, ImportBatch{}));
    const double bytes = static_cast<double>(source->bytes_read());
    progress.Advance(bytes);
    progress.Note(ProgressNote(read, bytes, total_bytes, started));
    return pushed;
  };
  while (!state.ended()) {
    bson_t* document = bson_new();
    std::int64_t line = 0;
    std::string reason;
    bool stop = false;
    auto found = source->Next(document, &line, &reason, &stop);
    if (!found.ok() || !found.value()) {
      bson_destroy(document);
      if (!found.ok()) {
        state.ReportInput(std::string(found.status().reason()));
        state.End(found.status());
      }
      break;
    }
    if (!reason.empty()) {
      bson_destroy(document);
      state.ReportDocument(line, reason);
      if (stop || options.stop_on_error) {
        state.End(Status(ErrorCode::kOperationFailed,
                         stop
                             ? "stopped at a value that does not fit its column (--parseGrace stop)"
                             : "stopped at the first error (--stopOnError)"));
      }
      continue;
    }
    batch_bytes += document->len;
    batch.documents.emplace_back(document);
    batch.lines.push_back(line);
    if ((batch.documents.size() >= options.batch_documents || batch_bytes >= options.batch_bytes) &&
        !flush())
      break;
  }
  // What was read before an error is still written: the error stops only what follows it.
  flush();
  queue.Close();
  for (std::thread& worker : workers) worker.join();
  progress.End();

  ImportResult result = state.Result();
  result.bytes_read = source->bytes_read();
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace quarry::tools::importing
