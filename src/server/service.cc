// Dispatch of one request: find the command, apply the generic arguments, run it, shape the
// reply or the error exactly as mongod does, count it.
#include "server/service.h"

#include <chrono>
#include <exception>
#include <future>
#include <thread>

#include "base/log.h"
#include "bson/builder.h"
#include "commands/register.h"
#include "server/reply_builder.h"
#include "server/write_concern.h"

namespace quarry::server {
namespace {

constexpr auto kSlowOperationThreshold = std::chrono::milliseconds(100);

// The database of an OP_QUERY command namespace ("admin.$cmd" -> "admin").
StatusWith<std::string> OpQueryDatabase(std::string_view ns) {
  constexpr std::string_view kSuffix = ".$cmd";
  if (ns.size() <= kSuffix.size() || ns.substr(ns.size() - kSuffix.size()) != kSuffix) {
    return Status(ErrorCode::kUnsupportedOpQueryCommand,
                  "OP_QUERY is only supported for commands on <db>.$cmd, not on '" +
                      std::string(ns) + "'");
  }
  return std::string(ns.substr(0, ns.size() - kSuffix.size()));
}

bool IsTransactionRequest(bson::DocumentView body) {
  return body.Has("startTransaction") || body.Has("autocommit");
}

void CountOperation(commands::OpCounters& counters, std::string_view name,
                    const commands::Request& request, bson::DocumentView reply) {
  if (name == "find") {
    counters.query.fetch_add(1, std::memory_order_relaxed);
  } else if (name == "getMore") {
    counters.getmore.fetch_add(1, std::memory_order_relaxed);
  } else if (name == "insert") {
    bson::ValueView n = reply.Get("n");
    counters.insert.fetch_add(n.IsNumber() ? n.AsInt64() : 0, std::memory_order_relaxed);
  } else if (name == "update" || name == "delete") {
    auto statements = request.Documents(name == "update" ? "updates" : "deletes");
    std::int64_t count = statements.ok() ? static_cast<std::int64_t>(statements.value().size()) : 0;
    (name == "update" ? counters.update : counters.remove)
        .fetch_add(count, std::memory_order_relaxed);
  } else {
    counters.command.fetch_add(1, std::memory_order_relaxed);
  }
}

// Remembers a write's outcome for getLastError.
void RecordLastWrite(commands::ConnectionState& connection, bson::DocumentView reply,
                     const Status& status) {
  commands::LastWrite last;
  last.present = true;
  if (!status.ok()) {
    last.error = std::string(status.reason());
    last.code = static_cast<std::int32_t>(status.code());
    last.code_name = status.code_name();
  } else {
    bson::ValueView n = reply.Get("n");
    last.n = n.IsNumber() ? n.AsInt64() : 0;
    bson::ValueView modified = reply.Get("nModified");
    last.updated_existing = modified.IsNumber() && last.n > 0;
    bson::ValueView upserted = reply.Get("upserted");
    if (upserted.type() == bson::Type::kArray) {
      for (const bson::Element& e : upserted.Document()) {
        if (e.value.type() == bson::Type::kDocument) {
          bson::DocumentBuilder b;
          b.Append("_id", e.value.Document().Get("_id"));
          last.upserted = std::move(b).Finish();
          last.updated_existing = false;
        }
      }
    }
    bson::ValueView write_errors = reply.Get("writeErrors");
    if (write_errors.type() == bson::Type::kArray) {
      for (const bson::Element& e : write_errors.Document()) {
        if (e.value.type() != bson::Type::kDocument) continue;
        bson::DocumentView err = e.value.Document();
        if (err.Get("errmsg").type() == bson::Type::kString) {
          last.error = std::string(err.Get("errmsg").String());
        }
        if (err.Get("code").IsNumber()) last.code = static_cast<std::int32_t>(err.Get("code").AsInt64());
        if (err.Get("codeName").type() == bson::Type::kString) {
          last.code_name = std::string(err.Get("codeName").String());
        }
        break;  // getLastError reports the first error, as mongod's legacy path did
      }
    }
  }
  connection.last_write = std::move(last);
}

// A w:0 client never sees its errors, so they are counted (serverStatus
// metrics.quarry.unacknowledgedWriteErrors) and logged, and getLastError still reports them.
void ReportUnacknowledgedErrors(commands::ServiceState& state,
                                const commands::ConnectionState& connection,
                                std::string_view command, const Status& status,
                                bson::DocumentView body) {
  std::int64_t errors = status.ok() ? 0 : 1;
  std::string first = status.ok() ? "" : status.ToString();
  bson::ValueView write_errors = body.Get("writeErrors");
  if (write_errors.type() == bson::Type::kArray) {
    for (const bson::Element& e : write_errors.Document()) {
      if (errors++ == 0 && e.value.type() == bson::Type::kDocument) {
        bson::ValueView errmsg = e.value.Document().Get("errmsg");
        if (errmsg.type() == bson::Type::kString) first = std::string(errmsg.String());
      }
    }
  }
  if (errors == 0) return;
  state.opcounters.w0_write_errors.fetch_add(errors, std::memory_order_relaxed);
  log::Write(log::Severity::kWarning, "COMMAND", 20000, "conn" + std::to_string(connection.id),
             "Unacknowledged write failed",
             {{"command", std::string(command)}, {"errors", errors}, {"firstError", first}});
}

// The labels mongod puts on an error: a retryable write (one with a txnNumber, outside a
// transaction) that fails with a retriable code may be retried by the driver.
std::optional<bson::Document> ErrorLabels(bson::DocumentView body, ErrorCode code) {
  if (!body.Has("txnNumber") || !IsInCategory(code, kRetriable)) return std::nullopt;
  bson::ArrayBuilder labels;
  labels.AppendString("RetryableWriteError");
  return std::move(labels).Finish();
}

}  // namespace

Service::Service(commands::ServiceState& state) : state_(state) {
  commands::RegisterAllCommands(registry_);
  if (state_.config.enable_test_commands) commands::RegisterTestCommands(registry_);
  state_.registry = &registry_;
}

std::unique_ptr<Session> Service::NewSession(std::int64_t connection_id, std::string remote) {
  return std::make_unique<Session>(*this, connection_id, std::move(remote));
}

Session::Session(Service& service, std::int64_t connection_id, std::string remote)
    : service_(service) {
  connection_.id = connection_id;
  connection_.remote = std::move(remote);
}

// One request on its way through dispatch.
struct Dispatch {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  bool more_to_come = false;
  commands::Request request;
  const commands::Command* command = nullptr;
  std::optional<commands::FailCommandAction> fail;
  std::optional<Status> write_concern_error;  // unsatisfiable w, reported after the write
  bool close_after_write = false;  // onPrimaryTransactionalWrite: apply, then drop the reply
  Status status;
  bson::Document body;
};

Reply Session::Handle(const wire::Request& request) {
  std::promise<Reply> promise;
  std::future<Reply> reply = promise.get_future();
  HandleAsync(request, [&promise](Reply r) { promise.set_value(std::move(r)); });
  return reply.get();
}

void Session::HandleAsync(const wire::Request& request, std::function<void(Reply)> done) {
  auto d = std::make_shared<Dispatch>();
  d->more_to_come = request.more_to_come();
  d->request.body = request.body;
  d->request.name = request.body.FirstKey();
  for (const wire::DocumentSequence& sequence : request.sequences) {
    d->request.sequences.push_back({sequence.identifier, &sequence.documents});
  }
  d->status = Resolve(request, d.get());

  // The failCommand fail point (test deployments only) acts before the command runs.
  commands::ServiceState& state = service_.state();
  if (d->status.ok() && state.config.enable_test_commands &&
      d->command->name != "configureFailPoint") {
    d->fail = state.fail_command.Check(d->request.name, connection_.app_name);
    if (d->fail.has_value() && d->fail->block_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(d->fail->block_ms));
    }
    if (d->fail.has_value() && d->fail->close_connection) {
      Reply reply;
      reply.send = false;
      reply.close_after = true;
      done(std::move(reply));
      return;
    }
    if (d->fail.has_value() && d->fail->error_code.has_value()) {
      d->status = Status(static_cast<ErrorCode>(*d->fail->error_code),
                         "Failing command via 'failCommand' failpoint");
    }
  }
  if (!d->status.ok()) {
    done(Finish(request, *d));
    return;
  }
  Run(request, std::move(d), std::move(done));
}

Status Session::Resolve(const wire::Request& request, Dispatch* d) {
  if (d->request.name.empty()) return Status(ErrorCode::kFailedToParse, "Command document is empty");
  const bool over_op_query = request.op_code == wire::OpCode::kQuery;
  if (over_op_query) {
    QUARRY_ASSIGN_OR_RETURN(d->request.db, OpQueryDatabase(request.full_collection_name));
  } else {
    bson::ValueView db = request.body.Get("$db");
    if (db.type() != bson::Type::kString) {
      return Status(static_cast<ErrorCode>(40571), "OP_MSG requests require a $db argument");
    }
    d->request.db = std::string(db.String());
  }
  d->command = service_.registry().Find(d->request.name);
  if (d->command == nullptr) {
    return Status(ErrorCode::kCommandNotFound,
                  "no such command: '" + std::string(d->request.name) + "'");
  }
  if (over_op_query && (d->command->flags & commands::kAllowedOverOpQuery) == 0) {
    return Status(ErrorCode::kUnsupportedOpQueryCommand,
                  "Unsupported OP_QUERY command: " + std::string(d->request.name) +
                      ". The client driver may require an upgrade.");
  }
  if ((d->command->flags & commands::kAdminOnly) != 0 && d->request.db != "admin") {
    return Status(ErrorCode::kUnauthorized, std::string(d->request.name) +
                                                " may only be run against the admin database.");
  }
  return Status::OK();
}

void Session::Run(const wire::Request& request, std::shared_ptr<Dispatch> d,
                  std::function<void(Reply)> done) {
  commands::ServiceState& state = service_.state();
  bson::ValueView lsid = request.body.Get("lsid");
  if (lsid.type() == bson::Type::kDocument) {
    bson::ValueView id = lsid.Document().Get("id");
    if (id.type() == bson::Type::kBinary) state.sessions.Touch(std::string(id.Binary().data));
  }
  StatusWith<ParsedWriteConcern> wc = ParseWriteConcern(request.body.Get("writeConcern"));
  if (!wc.ok()) {
    d->status = wc.status();
    done(Finish(request, *d));
    return;
  }
  if (IsTransactionRequest(request.body)) {
    d->status = Status(ErrorCode::kCommandNotSupported,
                       "multi-document transactions are not supported by Quarry yet");
    done(Finish(request, *d));
    return;
  }
  commands::CommandContext ctx(state, connection_);
  commands::WriteConcern concern = wc.value().concern;
  if (d->more_to_come) concern.unacknowledged = true;
  ctx.set_write_concern(concern);
  bson::ValueView max_time = request.body.Get("maxTimeMS");
  if (max_time.IsNumber() && max_time.AsInt64() > 0) {
    ctx.set_deadline(d->started + std::chrono::milliseconds(max_time.AsInt64()));
  }
  // A retried retryable write (same session, same txnNumber) gets the first attempt's reply.
  std::string session_id;
  bson::ValueView txn_number = request.body.Get("txnNumber");
  const bool retryable = (d->command->flags & commands::kWritesData) != 0 &&
                         txn_number.type() == bson::Type::kInt64 &&
                         lsid.type() == bson::Type::kDocument &&
                         lsid.Document().Get("id").type() == bson::Type::kBinary;
  if (retryable) {
    session_id = std::string(lsid.Document().Get("id").Binary().data);
    if (std::optional<bson::Document> first = state.sessions.RetryReply(session_id, txn_number.Int64())) {
      d->body = std::move(*first);
      done(Finish(request, *d));
      return;
    }
    // onPrimaryTransactionalWrite acts where mongod's does, on a write that really executes
    // (a retry answered above never reaches it). It closes the connection unless told not to;
    // with failBeforeCommitExceptionCode the write fails before it commits, else it commits
    // and only the reply is lost, so the driver's retry is answered from the session's memory.
    if (state.config.enable_test_commands) {
      if (std::optional<commands::FailCommandAction> fail =
              state.fail_primary_write.Check(d->request.name, connection_.app_name)) {
        d->close_after_write = !fail->close_connection_given || fail->close_connection;
        if (fail->fail_before_commit_code.has_value()) {
          d->status = Status(static_cast<ErrorCode>(*fail->fail_before_commit_code),
                             "Failing the write via the 'onPrimaryTransactionalWrite' fail point");
          done(Finish(request, *d));
          return;
        }
      }
    }
  }
  try {
    StatusWith<bson::Document> result = d->command->run(ctx, d->request);
    if (result.ok()) {
      d->body = std::move(result).value();
    } else {
      d->status = result.status();
    }
  } catch (const std::exception& e) {
    d->status = Status(ErrorCode::kInternalError, std::string("unexpected error: ") + e.what());
  } catch (...) {
    d->status = Status(ErrorCode::kInternalError, "unexpected error");
  }
  if ((d->command->flags & commands::kWritesData) != 0) {
    RecordLastWrite(connection_, d->body, d->status);
    d->write_concern_error = wc.value().unsatisfiable;
  }
  if (retryable && d->status.ok()) {
    state.sessions.RememberReply(session_id, txn_number.Int64(), d->body,
                                 ctx.write_concern().journal ? storage::Durability::kJournal
                                                             : storage::Durability::kNone);
  }
  commands::CommandContext::DeferredRun deferred = ctx.TakeDeferred();
  if (!deferred || !d->status.ok()) {
    done(Finish(request, *d));
    return;
  }
  deferred([this, &request, d, done = std::move(done)](StatusWith<bson::Document> result) {
    if (result.ok()) {
      d->body = std::move(result).value();
    } else {
      d->status = result.status();
    }
    done(Finish(request, *d));
  });
}

Reply Session::Finish(const wire::Request& request, Dispatch& d) {
  commands::ServiceState& state = service_.state();
  Reply reply;
  reply.send = !d.more_to_come && !d.close_after_write;
  reply.close_after = d.close_after_write;
  if (d.command != nullptr) CountOperation(state.opcounters, d.command->name, d.request, d.body);
  reply.compressible =
      d.command == nullptr || (d.command->flags & commands::kNeverCompressReply) == 0;

  std::optional<bson::Document> labels;
  if (d.fail.has_value() && d.fail->error_labels.has_value()) labels = d.fail->error_labels;
  if (d.status.ok()) {
    std::optional<bson::Document> fail_write_concern_error;
    if (d.fail.has_value() && d.fail->write_concern_error.has_value()) {
      fail_write_concern_error = d.fail->write_concern_error;
      bson::ValueView code = fail_write_concern_error->Get("code");
      if (!labels.has_value() && code.IsNumber()) {
        labels = ErrorLabels(request.body, static_cast<ErrorCode>(code.AsInt64()));
      }
    } else if (!labels.has_value() && d.write_concern_error.has_value()) {
      labels = ErrorLabels(request.body, d.write_concern_error->code());
    }
    reply.body = FinishSuccessReply(state, d.body, d.write_concern_error, fail_write_concern_error,
                                    labels);
  } else {
    if (!labels.has_value()) labels = ErrorLabels(request.body, d.status.code());
    if (d.status.code() == ErrorCode::kInternalError) {
      log::Write(log::Severity::kError, "COMMAND", 21962, "conn" + std::to_string(connection_.id),
                 "Assertion while executing command",
                 {{"command", std::string(d.request.name)}, {"error", d.status.ToString()}});
    }
    reply.body = BuildErrorReply(state, d.status, labels);
  }
  if (d.more_to_come) {
    ReportUnacknowledgedErrors(state, connection_, d.request.name, d.status, d.body);
  }

  auto elapsed = std::chrono::steady_clock::now() - d.started;
  if (elapsed > kSlowOperationThreshold && d.command != nullptr && d.command->name != "getMore") {
    log::Write(log::Severity::kInfo, "COMMAND", 51803, "conn" + std::to_string(connection_.id),
               "Slow query",
               {{"command", std::string(d.request.name)},
                {"ns", d.request.db},
                {"durationMillis",
                 static_cast<std::int64_t>(
                     std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count())}});
  }
  return reply;
}

}  // namespace quarry::server
