#include "server/accounting.h"

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

// opLatencies' class of a command: its descriptor's, else by its opcounter.
commands::LatencyCounter& LatencyOf(commands::OperationMetrics& metrics, const Accounted& done) {
  switch (done.command->latency) {
    case commands::LatencyClass::kRead:
      return metrics.reads;
    case commands::LatencyClass::kWrite:
      return metrics.writes;
    case commands::LatencyClass::kCommand:
      return metrics.commands;
    case commands::LatencyClass::kByCounter:
      break;
  }
  switch (done.command->counter) {
    case commands::OpCounter::kQuery:
    case commands::OpCounter::kGetMore:
      return metrics.reads;
    case commands::OpCounter::kInsert:
    case commands::OpCounter::kUpdate:
    case commands::OpCounter::kDelete:
      return metrics.writes;
    case commands::OpCounter::kCommand:
      break;
  }
  return metrics.commands;
}

// opLatencies and metrics.document.
void CountMetrics(commands::OperationMetrics& metrics, const Accounted& done) {
  commands::LatencyCounter& latency = LatencyOf(metrics, done);
  latency.micros.fetch_add(
      std::chrono::duration_cast<std::chrono::microseconds>(done.elapsed).count(),
      std::memory_order_relaxed);
  latency.ops.fetch_add(1, std::memory_order_relaxed);
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
  const bson::ValueView target = done.body.Get(done.name);
  std::string ns(done.db);
  ns += target.type() == bson::Type::kString ? "." + std::string(target.String()) : ".$cmd";
  const std::string command = done.body.size() <= kMaxLoggedCommandBytes
                                  ? done.body.ToJson()
                                  : "{\"" + std::string(done.name) + "\":\"(truncated)\"}";
  const auto millis = static_cast<std::int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(done.elapsed).count());
  const std::string context = "conn" + std::to_string(connection.id);
  if (done.status->ok()) {
    log::Write(log::Severity::kInfo, "COMMAND", 51803, context, "Slow query",
               {{"type", "command"},
                {"ns", ns},
                {"appName", connection.app_name},
                log::Attr::Json("command", command),
                {"ok", 1},
                {"protocol", "op_msg"},
                {"durationMillis", millis}});
    return;
  }
  log::Write(log::Severity::kInfo, "COMMAND", 51803, context, "Slow query",
             {{"type", "command"},
              {"ns", ns},
              {"appName", connection.app_name},
              log::Attr::Json("command", command),
              {"ok", 0},
              {"errMsg", std::string(done.status->reason())},
              {"errName", done.status->code_name()},
              {"errCode", static_cast<std::int64_t>(done.status->code())},
              {"protocol", "op_msg"},
              {"durationMillis", millis}});
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
  const bson::ValueView target = done.body.Get(done.name);
  if (target.type() == bson::Type::kString && target.String() == "system.profile") return;
  std::string ns(done.db);
  ns += target.type() == bson::Type::kString ? "." + std::string(target.String()) : ".$cmd";
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
  if (!done.status->ok()) {
    b.AppendInt32("ok", 0);
    b.AppendString("errMsg", done.status->reason());
    b.AppendString("errName", done.status->code_name());
    b.AppendInt32("errCode", static_cast<std::int32_t>(done.status->code()));
  }
  b.AppendString("protocol", "op_msg");
  b.AppendInt64("millis", millis);
  b.AppendDate("ts", NowMillis());
  const std::string_view remote = connection.remote;
  b.AppendString("client", remote.substr(0, remote.rfind(':')));
  if (!connection.app_name.empty()) b.AppendString("appName", connection.app_name);
  b.OpenArray("allUsers").Close();
  b.AppendString("user", "");
  profiler.Record(done.db, std::move(b).Finish());
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
    if (done.command->has(commands::kWritesData)) RecordLastWrite(connection, done);
  }
  if (done.unacknowledged) ReportUnacknowledgedErrors(state, connection, done);
  LogIfSlow(state, connection, done);
  if (done.command != nullptr) ProfileIfAsked(state, connection, done);
}

}  // namespace quarry::server
