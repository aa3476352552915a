#include "commands/diagnostics/current_op_report.h"

#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "auth/user_digest.h"
#include "bson/builder.h"
#include "bson/types.h"
#include "commands/diagnostics/transaction_report.h"
#include "commands/session_control.h"

namespace quarry::commands {
namespace {

// mongod truncates each command to this many bytes in the currentOp command's reply, which must
// fit in one 16 MiB document.
constexpr std::size_t kMaxCommandBytes = 1000;

std::string_view OpName(OpCounter counter) {
  switch (counter) {
    case OpCounter::kQuery:
      return "query";
    case OpCounter::kGetMore:
      return "getmore";
    case OpCounter::kInsert:
      return "insert";
    case OpCounter::kUpdate:
      return "update";
    case OpCounter::kDelete:
      return "remove";
    case OpCounter::kCommand:
      break;
  }
  return "command";
}

// The namespace mongod reports: the collection a command names, "db.$cmd.aggregate" for a
// collection-less aggregate, else "db.$cmd".
std::string NamespaceOf(const RunningOperation& operation) {
  const std::string db(operation.db);
  const bson::DocumentView body = operation.command;
  if (operation.counter == OpCounter::kGetMore) {
    bson::ValueView coll = body.Get("collection");
    if (coll.type() == bson::Type::kString) return db + "." + std::string(coll.String());
  }
  auto first = body.begin();
  if (first == body.end()) return db + ".$cmd";
  if (first->value.type() == bson::Type::kString)
    return db + "." + std::string(first->value.String());
  if (first->key == "aggregate") return db + ".$cmd.aggregate";
  return db + ".$cmd";
}

// Appends a number the way mongod's appendNumber does: int32 when it fits.
void AppendCount(bson::DocumentBuilder* b, std::string_view key, std::uint64_t value) {
  if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    b->AppendInt32(key, static_cast<std::int32_t>(value));
  } else {
    b->AppendInt64(key, static_cast<std::int64_t>(value));
  }
}

void AppendCommand(bson::DocumentBuilder* b, bson::DocumentView command, bool truncate) {
  if (!truncate || command.bytes().size() <= kMaxCommandBytes) {
    b->AppendDocument("command", command);
    return;
  }
  std::string text = command.ToJson();
  if (text.size() > kMaxCommandBytes) {
    text.resize(kMaxCommandBytes);
    text.replace(kMaxCommandBytes - 3, 3, "...");
  }
  b->OpenDocument("command");
  b->AppendString("$truncated", text);
  bson::ValueView comment = command.Get("comment");
  if (comment.exists()) b->Append("comment", comment);
  b->Close();
}

void AppendClient(bson::DocumentBuilder* b, const ServiceState& state,
                  const ClientConnection& connection) {
  b->AppendString("host", state.host_name + ":" + std::to_string(state.config.port));
  b->AppendString("desc", "conn" + std::to_string(connection.id));
  AppendCount(b, "connectionId", static_cast<std::uint64_t>(connection.id));
  b->AppendString("client", connection.remote);
  if (connection.metadata != nullptr) {
    bson::ValueView application = connection.metadata->Get("application");
    if (application.type() == bson::Type::kDocument) {
      bson::ValueView name = application.Document().Get("name");
      if (name.type() == bson::Type::kString && !name.String().empty())
        b->AppendString("appName", name.String());
    }
    b->AppendDocument("clientMetadata", connection.metadata->view());
  }
}

// The open transaction a running command of it belongs to, null for any other command.
const OpenTransaction* TransactionOf(const RunningOperation& operation,
                                     const std::vector<OpenTransaction>& open) {
  bson::ValueView txn_number = operation.command.Get("txnNumber");
  if (operation.session_key.empty() || txn_number.type() != bson::Type::kInt64) return nullptr;
  for (const OpenTransaction& txn : open) {
    if (txn.active && txn.session_key == operation.session_key &&
        txn.txn_number == txn_number.Int64()) {
      return &txn;
    }
  }
  return nullptr;
}

void AppendOperation(bson::DocumentBuilder* b, const RunningOperation& operation,
                     std::chrono::steady_clock::time_point now, bool truncate,
                     const std::vector<OpenTransaction>& open) {
  b->AppendInt32("opid", operation.opid);
  if (!operation.interrupt->Check().ok()) b->AppendBool("killPending", true);
  if (!operation.session_key.empty()) AppendLsid(b, operation.session_key);
  const auto running =
      std::chrono::duration_cast<std::chrono::microseconds>(now - operation.started);
  b->AppendInt64("secs_running", std::chrono::duration_cast<std::chrono::seconds>(running).count());
  b->AppendInt64("microsecs_running", running.count());
  b->AppendString("op", OpName(operation.counter));
  b->AppendString("ns", NamespaceOf(operation));
  AppendCommand(b, operation.command, truncate);
  if (operation.progress.has_value()) {
    const OperationProgress& progress = *operation.progress;
    // mongod's ProgressMeter: "<message> <message>: done/total percent%".
    std::string msg = progress.message + " " + progress.message + ": ";
    if (progress.total > 0) {
      msg += std::to_string(progress.done) + "/" + std::to_string(progress.total) + " " +
             std::to_string(progress.done * 100 / progress.total) + "%";
    } else {
      msg += "not started";
    }
    b->AppendString("msg", msg);
    b->OpenDocument("progress");
    AppendCount(b, "done", progress.done);
    AppendCount(b, "total", progress.total);
    b->Close();
  }
  b->AppendInt32("numYields", 0);
  // mongod reports the transaction of the session the command checked out: a multi-document
  // transaction's state, or a retryable write's number.
  if (const OpenTransaction* txn = TransactionOf(operation, open); txn != nullptr) {
    AppendTransaction(b, *txn);
  } else if (!operation.session_key.empty() && !operation.command.Has("autocommit") &&
             operation.command.Get("txnNumber").type() == bson::Type::kInt64) {
    AppendRetryableWriteTransaction(b, operation.command.Get("txnNumber").Int64());
  }
  b->OpenDocument("locks").Close();
  b->AppendBool("waitingForLock", operation.waiting_for_lock);
}

Status StageOptionError(ErrorCode code, std::string_view option, bson::Type type) {
  return Status(code, "The '" + std::string(option) +
                          "' parameter of the $currentOp stage must be a boolean value, but "
                          "found: " +
                          std::string(bson::TypeAlias(type)));
}

}  // namespace

StatusWith<CurrentOpOptions> ParseCurrentOpStage(bson::ValueView spec) {
  if (spec.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch,
                  "$currentOp options must be specified in an object, but found: " +
                      std::string(bson::TypeAlias(spec.type())));
  }
  // mongod checks allUsers and localOps before the other options, with another code.
  for (const bson::Element& e : spec.Document()) {
    if ((e.key == "allUsers" || e.key == "localOps") && e.value.type() != bson::Type::kBool)
      return StageOptionError(ErrorCode::kTypeMismatch, e.key, e.value.type());
  }
  CurrentOpOptions options;
  for (const bson::Element& e : spec.Document()) {
    const bool known = e.key == "allUsers" || e.key == "localOps" || e.key == "idleConnections" ||
                       e.key == "idleSessions" || e.key == "truncateOps" ||
                       e.key == "idleCursors" || e.key == "backtrace";
    if (!known) {
      return Status(ErrorCode::kFailedToParse,
                    "Unrecognized option '" + std::string(e.key) + "' in $currentOp stage.");
    }
    if (e.value.type() != bson::Type::kBool)
      return StageOptionError(ErrorCode::kFailedToParse, e.key, e.value.type());
    // One server has only local operations (localOps), and there is no backtrace.
    if (e.key == "idleCursors" && e.value.Bool()) {
      return Status(ErrorCode::kNotImplemented,
                    "$currentOp's idleCursors is not supported by Quarry yet: idle cursors are "
                    "not listed");
    }
    if (e.key == "idleConnections") options.idle_connections = e.value.Bool();
    if (e.key == "idleSessions") options.idle_sessions = e.value.Bool();
    if (e.key == "allUsers") options.all_users = e.value.Bool();
    if (e.key == "truncateOps") options.truncate_ops = e.value.Bool();
  }
  return options;
}

std::vector<bson::Document> CurrentOpDocuments(const ServiceState& state,
                                               const CurrentOpOptions& options) {
  const auto now = std::chrono::steady_clock::now();
  const std::string op_time = FormatOpTime(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count());
  // Read before the registry's lock is taken: ForEach's visitor must not call out.
  const std::vector<OpenTransaction> open = state.sessions != nullptr
                                                ? state.sessions->OpenTransactions()
                                                : std::vector<OpenTransaction>();
  std::vector<bson::Document> docs;
  state.operations.ForEach(options.idle_connections, [&](const RunningOperation* operation,
                                                         const ClientConnection* connection) {
    const std::optional<UserName>& user = operation != nullptr ? operation->user : connection->user;
    if (options.only_user.has_value() && user != options.only_user) return;
    bson::DocumentBuilder b;
    b.AppendString("type", "op");
    if (connection != nullptr) AppendClient(&b, state, *connection);
    b.AppendBool("active", operation != nullptr);
    b.AppendString("currentOpTime", op_time);
    if (user.has_value()) {
      b.OpenArray("effectiveUsers")
          .OpenDocument("0")
          .AppendString("user", user->user)
          .AppendString("db", user->db)
          .Close()
          .Close();
    }
    if (operation != nullptr) AppendOperation(&b, *operation, now, options.truncate_ops, open);
    docs.push_back(std::move(b).Finish());
  });
  if (!options.idle_sessions) return docs;
  // Without allUsers under --auth, only the sessions of the caller's user.
  const std::optional<std::string> uid = options.only_user.has_value()
                                             ? std::optional<std::string>(auth::UserDigest(
                                                   options.only_user->user, options.only_user->db))
                                             : std::nullopt;
  for (const OpenTransaction& txn : open) {
    if (txn.active) continue;
    if (uid.has_value() && SessionUidOfKey(txn.session_key) != *uid) continue;
    docs.push_back(IdleSessionDocument(state, txn));
  }
  return docs;
}

}  // namespace quarry::commands
