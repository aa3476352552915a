#include "commands/work_placement.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "catalog/catalog.h"
#include "cursors/cursor_manager.h"
#include "exec/id_point.h"
#include "exec/index_choice.h"

namespace quarry::commands {
namespace {

// Commands whose work does not grow with the data: they read counters, the catalog or
// in-memory state, or change the catalog (a drop removes a key range without reading it).
constexpr auto kShortCommands = std::to_array<std::string_view>({
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
    "fsyncUnlock",
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
    "logout",
    "ping",
    "planCacheClear",
    "refreshSessions",
    "saslContinue",
    "saslStart",
    "serverStatus",
    "startSession",
    "updateSearchIndex",
    "whatsmyuri",
});

// A write of more statements than this, or more bytes, is a bulk write: a worker's.
constexpr std::size_t kMaxShortStatements = 16;
constexpr std::size_t kMaxShortBytes = 256 * 1024;

// A unique index the planner answers `filter` from with one key (exec::UniqueIndexPinnedBy),
// in a collection without a default collation, which the index would have to share. Sparse
// indexes are left to the workers, as partial ones are.
bool HasUniqueIndexFor(const catalog::CollectionInfo& collection,
                       const bson::DocumentView& filter) {
  if (collection.options.Get("collation").exists()) return false;
  StatusWith<const catalog::IndexInfo*> index =
      exec::UniqueIndexPinnedBy(collection, filter, false);
  return index.ok() && index.value() != nullptr;
}

// A filter that names at most one document: `_id` or every field of a unique index equal to
// a value. Other fields may narrow it further; it still reads at most one document.
bool SelectsOne(const ServiceState& state, const Request& request,
                const bson::DocumentView& filter) {
  if (exec::IsPointValue(filter.Get("_id"))) return true;
  if (state.catalog == nullptr) return false;
  const bson::ValueView collection_name = request.Field(request.name);
  if (collection_name.type() != bson::Type::kString) return false;
  const std::shared_ptr<const catalog::CollectionInfo> collection =
      state.catalog->Find(request.db, collection_name.String());
  return collection != nullptr && HasUniqueIndexFor(*collection, filter);
}

bool FilterSelectsOne(const ServiceState& state, const Request& request, bson::ValueView filter) {
  return filter.type() == bson::Type::kDocument && SelectsOne(state, request, filter.Document());
}

// A find or findAndModify that names one document and lets the planner choose how to reach it
// (a hint, min or max may force a collection scan; so may a collation the index lacks).
bool IsPointQuery(const ServiceState& state, const Request& request, std::string_view filter) {
  if (request.HasAnyField({"hint", "min", "max", "collation"})) return false;
  return FilterSelectsOne(state, request, request.Field(filter));
}

// A write concern that waits for the journal's sync to disk: j, fsync, or w "majority" (a
// one-member set's majority is its own journal). The wait would hold the io thread.
bool WaitsForJournal(const Request& request) {
  const bson::ValueView concern = request.Field("writeConcern");
  if (concern.type() != bson::Type::kDocument) return false;
  const bson::DocumentView fields = concern.Document();
  const bson::ValueView w = fields.Get("w");
  return fields.Get("j").Truthy() || fields.Get("fsync").Truthy() ||
         (w.type() == bson::Type::kString && w.String() == "majority");
}

// A write of a few statements, each (for updates and deletes) naming one document, that does
// not wait for the journal.
bool IsShortWrite(const ServiceState& state, const Request& request, std::string_view field,
                  std::string_view filter_field) {
  if (WaitsForJournal(request)) return false;
  StatusWith<std::vector<bson::DocumentView>> statements = request.Documents(field);
  if (!statements.ok() || statements.value().size() > kMaxShortStatements) return false;
  std::size_t bytes = 0;
  for (const bson::DocumentView& statement : statements.value()) {
    bytes += statement.size();
    if (filter_field.empty()) continue;
    if (statement.Get("hint").exists() || statement.Get("collation").exists() ||
        !FilterSelectsOne(state, request, statement.Get(filter_field))) {
      return false;
    }
  }
  return bytes <= kMaxShortBytes;
}

// `$vectorSearch` answers from the in-memory index with bounded work (numCandidates is at most
// 10,000); an exact search scans every vector.
bool IsApproximateVectorSearch(const Request& request) {
  const bson::ValueView pipeline = request.Field("pipeline");
  if (pipeline.type() != bson::Type::kArray) return false;
  const bson::ValueView first = pipeline.Document().Get("0");
  if (first.type() != bson::Type::kDocument) return false;
  const bson::ValueView stage = first.Document().Get("$vectorSearch");
  if (stage.type() != bson::Type::kDocument) return false;
  const bson::ValueView exact = stage.Document().Get("exact");
  return !(exact.exists() && exact.Truthy());
}

// A getMore on a change stream parks its cursor with the change notifier, which builds the
// batch on its own thread: the command itself is short.
bool IsAwaitingGetMore(const ServiceState& state, const Request& request) {
  const bson::ValueView id = request.Field(request.name);
  return state.cursors != nullptr && id.IsIntegral() && state.cursors->AwaitsData(id.AsInt64());
}

}  // namespace

bool RunsOnIoThread(const ServiceState& state, const Command& command, const Request& request) {
  const std::string_view name = command.name;
  // Reads and writes first: they are most requests, and none is in kShortCommands.
  if (name == "find") return IsPointQuery(state, request, "filter");
  if (name == "findAndModify") {
    return !WaitsForJournal(request) && IsPointQuery(state, request, "query");
  }
  if (name == "insert") return IsShortWrite(state, request, "documents", "");
  if (name == "update") return IsShortWrite(state, request, "updates", "q");
  if (name == "delete") return IsShortWrite(state, request, "deletes", "q");
  if (name == "aggregate") return IsApproximateVectorSearch(request);
  if (name == "getMore") return IsAwaitingGetMore(state, request);
  return std::ranges::find(kShortCommands, name) != kShortCommands.end();
}

}  // namespace quarry::commands
