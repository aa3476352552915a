// What `quarry export` is asked for (mongoexport's flags, as text) and the checked plan made
// from it before anything connects, so every bad argument is reported before any work.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"
#include "tools/export/json_writer.h"

namespace quarry::tools::exporting {

struct ExportOptions {
  std::string uri = "mongodb://localhost:27017";
  std::string database;  // "": the URI's database, else "test" (as mongoexport)
  std::string collection;
  std::string out;         // "" or "-": standard output
  std::string query;       // Extended JSON filter; "" matches every document
  std::string fields;      // comma-separated field paths
  std::string field_file;  // a file of field paths, one per line
  std::string sort;        // Extended JSON sort document
  std::int64_t skip = 0;
  std::int64_t limit = 0;     // 0: no limit
  std::string type = "json";  // json or csv, in any case
  bool json_array = false;
  bool pretty = false;
  std::string json_format = "relaxed";
  bool no_header_line = false;
};

enum class OutputType { kJson, kCsv };

struct ExportPlan {
  std::string uri;
  std::string database;  // "": the URI's database, else "test"
  std::string collection;
  std::string out;
  client::BsonPtr filter{nullptr};      // always set: {} when there is no --query
  client::BsonPtr sort{nullptr};        // null without --sort
  client::BsonPtr projection{nullptr};  // null without a field list
  std::vector<std::string> fields;      // the field list, in the order given
  std::int64_t skip = 0;
  std::int64_t limit = 0;
  OutputType type = OutputType::kJson;
  JsonFormat json_format = JsonFormat::kRelaxed;
  bool json_array = false;
  bool pretty = false;
  bool header_line = true;
  // Count the documents to export first, for a progress bar's total.
  bool estimate_total = false;
};

// Checks `options` and parses its JSON and field list. Fails with kBadValue (or kFailedToParse
// for JSON that libbson rejects) naming the flag: an unknown --type or --jsonFormat, CSV without
// a field list ("CSV mode requires a field list", as mongoexport), both --fields and
// --fieldFile, a negative --skip or --limit, an unreadable --fieldFile.
StatusWith<ExportPlan> PlanExport(const ExportOptions& options);

// The field paths of a comma-separated list, blanks trimmed and empty entries dropped.
std::vector<std::string> SplitFieldList(std::string_view list);

// The field paths of a --fieldFile's text: one per line, blank lines skipped.
std::vector<std::string> ParseFieldFile(std::string_view text);

// The projection for a field list, as mongoexport builds it: `_id` and the top-level name of
// each path (a dotted path such as "tags.0" cannot be projected into an array), so the
// export's own path lookup picks the value out. A positional "a.$" is passed as it is.
client::BsonPtr FieldProjection(const std::vector<std::string>& fields);

// Parses Extended JSON `text` given to `flag`. Fails with kFailedToParse and libbson's reason.
StatusWith<client::BsonPtr> ParseJsonFlag(std::string_view flag, const std::string& text);

}  // namespace quarry::tools::exporting
