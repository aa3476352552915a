#include "server/accounting.h"

#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "bson/builder.h"
#include "commands/diagnostics/profiler.h"

namespace quarry::server {
namespace {

void CountOperation(commands::OpCounters& counters, const Accounted& done) {
  const commands::OpCounter counter =
      done.command != nullptr ? done.command->counter : commands::OpCounter::kCommand;
  const std::int64_t statements = done.outcome->present ? done.outcome->statements : 0;
  switch (counter) {
    case commands::OpCounter::kQuery:
      counters.query.fetch_add(1, std::memory_order_relaxed);
      return;
    case commands::OpCounter::kGetMore:
      counters.getmore.fetch_add(1, std::memory_order_relaxed);
      return;
    case commands::OpCounter::kInsert:
      counters.insert.fetch_add(done.outcome->n, std::memory_order_relaxed);
      return;
    case commands::OpCounter::kUpdate:
      counters.update.fetch_add(statements, std::memory_order_relaxed);
      return;
    case commands::OpCounter::kDelete:
      counters.remove.fetch_add(statements, std::memory_order_relaxed);
      return;
    case commands::OpCounter::kCommand:
      counters.command.fetch_add(1, std::memory_order_relaxed);
      return;
  }
}

// The latency class of a command (opLatencies, $collStats' latencyStats): its descriptor's,
// else by its opcounter.
commands::NamespaceUsage::LatencyKind LatencyKindOf(const Accounted& done) {
  using Usage = commands::NamespaceUsage;
  switch (done.command->latency) {
    case commands::LatencyClass::kRead:
      return Usage::kReads;
    case commands::LatencyClass::kWrite:
      return Usage::kWrites;
    case commands::LatencyClass::kCommand:
      return Usage::kOtherCommands;
    case commands::LatencyClass::kByCounter:
      break;
  }
  switch (done.command->counter) {
    case commands::OpCounter::kQuery:
    case commands::OpCounter::kGetMore:
      return Usage::kReads;
    case commands::OpCounter::kInsert:
    case commands::OpCounter::kUpdate:
    case commands::OpCounter::kDelete:
      return Usage::kWrites;
    case commands::OpCounter::kCommand:
      break;
  }
  return Usage::kOtherCommands;
}

commands::LatencyCounter& LatencyOf(commands::OperationMetrics& metrics, const Accounted& done) {
  switch (LatencyKindOf(done)) {
    case commands::NamespaceUsage::kReads:
      return metrics.reads;
    case commands::NamespaceUsage::kWrites:
      return metrics.writes;
    default:
      return metrics.commands;
  }
}

// metrics.document.returned, metrics.queryExecutor and metrics.operation.
void CountWork(commands::OperationMetrics& metrics, const Accounted& done) {
  const commands::OperationStats& stats = *done.stats;
  constexpr auto kRelaxed = std::memory_order_relaxed;
  if (stats.nreturned.has_value()) metrics.documents_returned.fetch_add(*stats.nreturned, kRelaxed);
  if (stats.keys_examined > 0) metrics.keys_scanned.fetch_add(stats.keys_examined, kRelaxed);
  if (stats.docs_examined > 0) metrics.docs_scanned.fetch_add(stats.docs_examined, kRelaxed);
  if (stats.has_sort_stage) metrics.scan_and_order.fetch_add(1, kRelaxed);
  if (stats.write_conflicts > 0) metrics.write_conflicts.fetch_add(stats.write_conflicts, kRelaxed);
  if (done.status->code() == ErrorCode::kMaxTimeMSExpired) {
    metrics.killed_max_time_ms.fetch_add(1, kRelaxed);
  }
}

// opLatencies and metrics.document.
void CountMetrics(commands::OperationMetrics& metrics, const Accounted& done) {
  commands::LatencyCounter& latency = LatencyOf(metrics, done);
  latency.micros.fetch_add(
      std::chrono::duration_cast<std::chrono::microseconds>(done.elapsed).count(),
      std::memory_order_relaxed);
  latency.ops.fetch_add(1, std::memory_order_relaxed);
  CountWork(metrics, done);
  if (!done.outcome->present) return;
  const commands::WriteOutcome& outcome = *done.outcome;
  switch (done.command->counter) {
    case commands::OpCounter::kInsert:
      metrics.documents_inserted.fetch_add(outcome.n, std::memory_order_relaxed);
      return;
    case commands::OpCounter::kUpdate:
      metrics.documents_updated.fetch_add(outcome.modified.value_or(0), std::memory_order_relaxed);
      metrics.documents_inserted.fetch_add(static_cast<std::int64_t>(outcome.upserted.size()),
                                           std::memory_order_relaxed);
      return;
    case commands::OpCounter::kDelete:
      metrics.documents_deleted.fetch_add(outcome.n, std::memory_order_relaxed);
      return;
    default:
      return;
  }
}

void CountCommand(const commands::ServiceState& state, const Accounted& done) {
  if (done.command == nullptr || state.registry == nullptr) return;
  commands::CommandCounters& counters = state.registry->counters(done.command);
  counters.total.fetch_add(1, std::memory_order_relaxed);
  if (!done.status->ok()) counters.failed.fetch_add(1, std::memory_order_relaxed);
  counters.micros.fetch_add(
      std::chrono::duration_cast<std::chrono::microseconds>(done.elapsed).count(),
      std::memory_order_relaxed);
}

// Remembers a write's outcome for getLastError, which reports the first error.
void RecordLastWrite(commands::ConnectionState& connection, const Accounted& done) {
  commands::LastWrite last;
  last.present = true;
  const commands::WriteError* error = done.outcome->first_error();
  const Status* failure = !done.status->ok() ? done.status
                          : error != nullptr ? &error->status
                                             : nullptr;
  if (failure != nullptr) {
    last.error = std::string(failure->reason());
    last.code = static_cast<std::int32_t>(failure->code());
    last.code_name = failure->code_name();
  }
  if (done.status->ok()) {
    last.n = done.outcome->n;
    last.updated_existing = done.outcome->updated_existing;
    if (!done.outcome->upserted.empty()) {
      last.upserted = done.outcome->upserted.back().id;
      last.updated_existing = false;
    }
  }
  connection.last_write = std::move(last);
}

// A w:0 client never sees its errors, so they are counted (serverStatus
// metrics.quarry.unacknowledgedWriteErrors) and logged, and getLastError still reports them.
void ReportUnacknowledgedErrors(commands::ServiceState& state,
                                const commands::ConnectionState& connection,
                                const Accounted& done) {
  std::int64_t errors = done.status->ok() ? 0 : 1;
  std::string first = done.status->ok() ? "" : done.status->ToString();
  for (const commands::WriteError& error : done.outcome->errors) {
    if (errors++ == 0) first = std::string(error.status.reason());
  }
  if (errors == 0) return;
  state.opcounters.w0_write_errors.fetch_add(errors, std::memory_order_relaxed);
  log::Write(log::Severity::kWarning, "COMMAND", 20000, "conn" + std::to_string(connection.id),
             "Unacknowledged write failed",
             {{"command", std::string(done.name)}, {"errors", errors}, {"firstError", first}});
}

// The namespace a command names: its first value's collection (a getMore's `collection`), else
// the database's $cmd.
std::string NamespaceOf(const Accounted& done) {
  bson::ValueView target = done.body.Get(done.name);
  if (target.type() != bson::Type::kString) target = done.body.Get("collection");
  std::string ns(done.db);
  ns += target.type() == bson::Type::kString ? "." + std::string(target.String()) : ".$cmd";
  return ns;
}

// mongod's larger commands appear in the log truncated; Quarry names them instead.
constexpr std::size_t kMaxLoggedCommandBytes = 16 * 1024;

// mongod's "Slow query" line (id 51803): the namespace the command names, its client, the
// command itself, how it ended and how long it took.
void LogIfSlow(const commands::ServiceState& state, const commands::ConnectionState& connection,
               const Accounted& done) {
  const auto threshold = std::chrono::milliseconds(state.parameters.slow_ms.load());
  if (done.elapsed <= threshold || done.command == nullptr ||
      done.command->has(commands::kWaitsByDesign)) {
    return;
  }
  const std::string ns = NamespaceOf(done);
  const std::string command = done.body.size() <= kMaxLoggedCommandBytes
                                  ? done.body.ToJson()
                                  : "{\"" + std::string(done.name) + "\":\"(truncated)\"}";
  const auto millis = static_cast<std::int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(done.elapsed).count());
  const std::string context = "conn" + std::to_string(connection.id);
  std::vector<log::Attr> attrs = {{"type", "command"},
                                  {"ns", ns},
                                  {"appName", connection.app_name},
                                  log::Attr::Json("command", command)};
  const commands::OperationStats& stats = *done.stats;
  if (!stats.plan_summary.empty()) {
    attrs.emplace_back("planSummary", stats.plan_summary);
    attrs.emplace_back("keysExamined", stats.keys_examined);
    attrs.emplace_back("docsExamined", stats.docs_examined);
  }
  if (stats.has_sort_stage) attrs.emplace_back("hasSortStage", true);
  if (stats.write_conflicts > 0) attrs.emplace_back("writeConflicts", stats.write_conflicts);
  if (stats.nreturned.has_value()) attrs.emplace_back("nreturned", *stats.nreturned);
  if (done.status->ok()) {
    attrs.emplace_back("ok", 1);
  } else {
    attrs.emplace_back("ok", 0);
    attrs.emplace_back("errMsg", std::string(done.status->reason()));
    attrs.emplace_back("errName", done.status->code_name());
    attrs.emplace_back("errCode", static_cast<std::int64_t>(done.status->code()));
  }
  attrs.emplace_back("protocol", "op_msg");
  attrs.emplace_back("durationMillis", millis);
  log::Write(log::Severity::kInfo, "COMMAND", 51803, context, "Slow query", attrs);
}

// system.profile's op for a command, as mongod names them by kind.
std::string_view ProfileOp(const commands::Command& command) {
  switch (command.counter) {
    case commands::OpCounter::kQuery:
      return "query";
    case commands::OpCounter::kGetMore:
      return "getmore";
    case commands::OpCounter::kInsert:
      return "insert";
    case commands::OpCounter::kUpdate:
      return "update";
    case commands::OpCounter::kDelete:
      return "remove";
    case commands::OpCounter::kCommand:
      break;
  }
  return "command";
}

// At level 2 every operation of the database, at level 1 those slower than slowms, goes to its
// system.profile in mongod's document shape. Reads of system.profile itself are left out, so
// that looking at the profile does not fill it.
void ProfileIfAsked(const commands::ServiceState& state,
                    const commands::ConnectionState& connection, const Accounted& done) {
  commands::Profiler& profiler = commands::GlobalProfiler();
  if (!profiler.AnyProfiled()) return;
  const int level = profiler.Level(done.db);
  const auto millis = static_cast<std::int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(done.elapsed).count());
  if (level == 0 || (level == 1 && millis <= state.parameters.slow_ms.load())) return;
  const std::string ns = NamespaceOf(done);
  if (ns == std::string(done.db) + ".system.profile") return;
  bson::DocumentBuilder b;
  b.AppendString("op", ProfileOp(*done.command));
  b.AppendString("ns", ns);
  if (done.body.size() <= kMaxLoggedCommandBytes) {
    b.AppendDocument("command", done.body);
  } else {
    b.OpenDocument("command").AppendString("$truncated", std::string(done.name)).Close();
  }
  if (done.outcome->present) {
    const commands::WriteOutcome& outcome = *done.outcome;
    switch (done.command->counter) {
      case commands::OpCounter::kInsert:
        b.AppendInt64("ninserted", outcome.n);
        break;
      case commands::OpCounter::kUpdate:
        b.AppendInt64("nMatched", outcome.n);
        b.AppendInt64("nModified", outcome.modified.value_or(0));
        b.AppendInt64("nUpserted", static_cast<std::int64_t>(outcome.upserted.size()));
        break;
      case commands::OpCounter::kDelete:
        b.AppendInt64("ndeleted", outcome.n);
        break;
      default:
        break;
    }
  }
  const commands::OperationStats& stats = *done.stats;
  if (!stats.plan_summary.empty()) {
    b.AppendInt64("keysExamined", stats.keys_examined);
    b.AppendInt64("docsExamined", stats.docs_examined);
  }
  if (stats.has_sort_stage) b.AppendBool("hasSortStage", true);
  if (stats.write_conflicts > 0) b.AppendInt64("writeConflicts", stats.write_conflicts);
  if (stats.nreturned.has_value()) b.AppendInt64("nreturned", *stats.nreturned);
  if (!done.status->ok()) {
    b.AppendInt32("ok", 0);
    b.AppendString("errMsg", done.status->reason());
    b.AppendString("errName", done.status->code_name());
    b.AppendInt32("errCode", static_cast<std::int32_t>(done.status->code()));
  }
  b.AppendString("protocol", "op_msg");
  b.AppendInt64("millis", millis);
  if (!stats.plan_summary.empty()) b.AppendString("planSummary", stats.plan_summary);
  b.AppendDate("ts", NowMillis());
  const std::string_view remote = connection.remote;
  b.AppendString("client", remote.substr(0, remote.rfind(':')));
  if (!connection.app_name.empty()) b.AppendString("appName", connection.app_name);
  b.OpenArray("allUsers").Close();
  b.AppendString("user", "");
  profiler.Record(done.db, std::move(b).Finish());
}

// top's figures: a command that names a collection counts for it; a drop forgets it.
void CountForTop(commands::NamespaceUsage& usage, commands::ConnectionState& connection,
                 const Accounted& done) {
  using Usage = commands::NamespaceUsage;
  if (done.command->name == "dropDatabase") {
    if (done.status->ok()) usage.ForgetDatabase(done.db);
    return;
  }
  // The command's own field comes first; a getMore names its collection in another.
  const bson::ValueView target = done.command->counter == commands::OpCounter::kGetMore
                                     ? done.body.Get("collection")
                                     : done.body.begin()->value;
  if (target.type() != bson::Type::kString || target.String().empty()) return;
  // Built on the stack: most namespaces are short, and this runs for every command.
  char buffer[256];
  const std::string_view coll = target.String();
  const std::size_t length = done.db.size() + 1 + coll.size();
  std::string heap;
  char* out = buffer;
  if (length > sizeof(buffer)) {
    heap.resize(length);
    out = heap.data();
  }
  std::memcpy(out, done.db.data(), done.db.size());
  out[done.db.size()] = '.';
  std::memcpy(out + done.db.size() + 1, coll.data(), coll.size());
  const std::string_view ns(out, length);
  if (done.command->name == "drop") {
    if (done.status->ok()) usage.Forget(ns);
    return;
  }
  // By opcounter, in OpCounter's order: kCommand, kQuery, kGetMore, kInsert, kUpdate, kDelete.
  constexpr Usage::Section kSectionOf[] = {Usage::kCommands, Usage::kQueries, Usage::kGetMore,
                                           Usage::kInsert,   Usage::kUpdate,  Usage::kRemove};
  static_assert(static_cast<std::size_t>(commands::OpCounter::kDelete) + 1 ==
                std::size(kSectionOf));
  const Usage::Section kind = kSectionOf[static_cast<std::size_t>(done.command->counter)];
  const bool writes =
      done.command->has(commands::kWritesData) || done.command->has(commands::kChangesStoredData);
  // As mongod's queryExecStats: each command whose plan scanned the collection, once (its
  // getMores are the same scan).
  const bool collection_scan = done.command->counter != commands::OpCounter::kGetMore &&
                               done.stats->plan_summary.find("COLLSCAN") != std::string::npos;
  usage.Record(ns, writes, kind,
               std::chrono::duration_cast<std::chrono::microseconds>(done.elapsed),
               &connection.top_handle,
               {.latency = LatencyKindOf(done),
                .collection_scan = collection_scan,
                .tailable = collection_scan && done.body.Get("tailable").Truthy()});
}

}  // namespace

void Account(commands::ServiceState& state, commands::ConnectionState& connection,
             const Accounted& done) {
  if (done.command == nullptr) {
    // A request refused before its command was looked up (no $db, an empty document) names
    // no unknown command: mongod counts <UNKNOWN> only when the lookup fails.
    if (done.status->code() == ErrorCode::kCommandNotFound) {
      state.opcounters.unknown_commands.fetch_add(1, std::memory_order_relaxed);
    }
  } else {
    CountOperation(state.opcounters, done);
    CountCommand(state, done);
    CountMetrics(state.metrics, done);
    CountForTop(state.usage, connection, done);
    if (done.command->has(commands::kWritesData)) RecordLastWrite(connection, done);
  }
  if (done.unacknowledged) ReportUnacknowledgedErrors(state, connection, done);
  LogIfSlow(state, connection, done);
  if (done.command != nullptr) ProfileIfAsked(state, connection, done);
}

}  // namespace quarry::server
