// `quarry import`: reads JSON, CSV or TSV from a file or stdin and writes it to a collection
// through insertion workers, as mongoimport does. The reader converts documents into batches;
// a bounded queue hands them to the workers, so memory stays flat at any input size and a slow
// server slows the reader.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/progress.h"
#include "tools/import/csv_columns.h"
#include "tools/import/import_batch_writer.h"

namespace quarry::tools::importing {

enum class InputType { kJson, kCsv, kTsv };

struct ImportOptions {
  std::string uri = "mongodb://localhost:27017";
  std::string database;    // empty: the URI's database, else "test"
  std::string collection;  // empty: the file's name without its extension
  std::string file;        // empty or "-": stdin
  InputType type = InputType::kJson;
  bool json_array = false;
  // CSV and TSV: where the field names come from (exactly one of the three).
  bool header_line = false;
  std::vector<std::string> fields;
  std::string field_file;
  bool columns_have_types = false;
  bool ignore_blanks = false;
  ParseGrace parse_grace = ParseGrace::kStop;

  ImportMode mode = ImportMode::kInsert;
  std::vector<std::string> upsert_fields;  // empty: _id
  bool drop = false;
  bool stop_on_error = false;
  bool maintain_insertion_order = false;
  int insertion_workers = 1;
  std::string write_concern;  // "majority", "1", or a document such as {w: 1, j: true}
  std::size_t batch_documents = 1000;
  std::size_t batch_bytes = 8 << 20;
};

struct ImportResult {
  std::uint64_t imported = 0;
  std::uint64_t failed = 0;
  std::uint64_t bytes_read = 0;
  double seconds = 0;
  Status error = Status::OK();  // what ended the import early (the counts stand)
};

// Checks the options that need no server: CSV/TSV field sources, modes, worker counts. Fills
// the database and collection defaults. kBadValue with a message for the user.
Status ResolveImportOptions(ImportOptions* options);

// Runs the import. Each document that fails is reported on `errors` as
// "<file>:<line>: <reason>". Fails before importing anything for a bad option or an
// unreachable server; an error met later ends the import with `error` set and what was
// acknowledged counted.
StatusWith<ImportResult> RunImport(const ImportOptions& options, client::ProgressSink& progress,
                                   std::FILE* errors);

// A --writeConcern value as a write concern document: "majority", a number, or a document with
// w, j and wtimeout, with keys quoted or not ({w: 1, j: true}).
StatusWith<client::BsonPtr> ParseWriteConcern(const std::string& text);

}  // namespace quarry::tools::importing
