#include "server/work_placement.h"

#include <array>
#include <string_view>

namespace quarry::server {
namespace {

// Commands whose work does not grow with the data: they read counters, the catalog or
// in-memory state, or change the catalog (a drop removes a key range without reading it).
constexpr std::array<std::string_view, 35> kShortCommands = {
    "buildInfo",
    "collMod",
    "collStats",
    "configureFailPoint",
    "connectionStatus",
    "create",
    "createSearchIndexes",
    "currentOp",
    "dbStats",
    "drop",
    "dropDatabase",
    "dropIndexes",
    "dropSearchIndex",
    "endSessions",
    "getCmdLineOpts",
    "getLastError",
    "getLog",
    "getParameter",
    "hello",
    "hostInfo",
    "killAllSessions",
    "killCursors",
    "killOp",
    "killSessions",
    "listCollections",
    "listCommands",
    "listDatabases",
    "listIndexes",
    "ping",
    "planCacheClear",
    "refreshSessions",
    "serverStatus",
    "startSession",
    "updateSearchIndex",
    "whatsmyuri",
};

// A write of more statements than this, or more bytes, is a bulk write: a worker's.
constexpr std::size_t kMaxShortStatements = 16;
constexpr std::size_t kMaxShortBytes = 256 * 1024;

// A filter that names one document by _id: `{_id: v}` with v neither a document (operators),
// an array nor a regular expression. Other fields may narrow it further; it still reads at
// most one document.
bool SelectsById(const bson::DocumentView& filter) {
  const bson::ValueView id = filter.Get("_id");
  if (!id.exists()) return false;
  const bson::Type type = id.type();
  return type != bson::Type::kDocument && type != bson::Type::kArray && type != bson::Type::kRegex;
}

bool FieldSelectsById(const bson::DocumentView& document, std::string_view field) {
  const bson::ValueView filter = document.Get(field);
  return filter.type() == bson::Type::kDocument && SelectsById(filter.Document());
}

// A write of a few statements, each (for updates and deletes) by _id.
bool IsShortWrite(const commands::Request& request, std::string_view field,
                  std::string_view filter_field) {
  StatusWith<std::vector<bson::DocumentView>> statements = request.Documents(field);
  if (!statements.ok() || statements.value().size() > kMaxShortStatements) return false;
  std::size_t bytes = 0;
  for (const bson::DocumentView& statement : statements.value()) {
    bytes += statement.size();
    if (!filter_field.empty() && !FieldSelectsById(statement, filter_field)) return false;
  }
  return bytes <= kMaxShortBytes;
}

// `$vectorSearch` answers from the in-memory index with bounded work (numCandidates is at most
// 10,000); an exact search scans every vector.
bool IsApproximateVectorSearch(const bson::DocumentView& body) {
  const bson::ValueView pipeline = body.Get("pipeline");
  if (pipeline.type() != bson::Type::kArray) return false;
  const bson::ValueView first = pipeline.Document().Get("0");
  if (first.type() != bson::Type::kDocument) return false;
  const bson::ValueView stage = first.Document().Get("$vectorSearch");
  if (stage.type() != bson::Type::kDocument) return false;
  const bson::ValueView exact = stage.Document().Get("exact");
  return !(exact.exists() && exact.Truthy());
}

}  // namespace

bool RunsOnIoThread(const commands::Command& command, const commands::Request& request) {
  const std::string_view name = command.name;
  for (std::string_view short_command : kShortCommands) {
    if (name == short_command) return true;
  }
  if (name == "find") return FieldSelectsById(request.body, "filter");
  if (name == "findAndModify") return FieldSelectsById(request.body, "query");
  if (name == "insert") return IsShortWrite(request, "documents", "");
  if (name == "update") return IsShortWrite(request, "updates", "q");
  if (name == "delete") return IsShortWrite(request, "deletes", "q");
  if (name == "aggregate") return IsApproximateVectorSearch(request.body);
  return false;
}

}  // namespace quarry::server
