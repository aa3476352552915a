// Dispatch of one request: find the command, apply the generic arguments, run it, shape the
// reply or the error exactly as mongod does, account for it.
#include "server/service.h"

#include <chrono>
#include <exception>
#include <future>
#include <optional>
#include <thread>

#include "base/log.h"
#include "base/recycling_allocator.h"
#include "bson/builder.h"
#include "bson/field_table.h"
#include "commands/auth/authorizer.h"
#include "commands/auth/session_uid.h"
#include "commands/register.h"
#include "commands/session_control.h"
#include "commands/work_placement.h"
#include "server/accounting.h"
#include "server/read_concern.h"
#include "server/reply_builder.h"
#include "server/sessions/transaction_arguments.h"
#include "server/write_concern.h"
#include "storage/engine.h"

namespace quarry::server {
namespace {

// The database of an OP_QUERY command namespace ("admin.$cmd" -> "admin").
StatusWith<std::string> OpQueryDatabase(std::string_view ns) {
  constexpr std::string_view kSuffix = ".$cmd";
  if (ns.size() <= kSuffix.size() || ns.substr(ns.size() - kSuffix.size()) != kSuffix) {
    return Status(
        ErrorCode::kUnsupportedOpQueryCommand,
        "OP_QUERY is only supported for commands on <db>.$cmd, not on '" + std::string(ns) + "'");
  }
  return std::string(ns.substr(0, ns.size() - kSuffix.size()));
}

bool IsTransactionRequest(const bson::FieldTable& body) {
  return body.HasAnyOf({"startTransaction", "autocommit"});
}

bool IsCommitOrAbort(std::string_view name) {
  return name == "commitTransaction" || name == "abortTransaction";
}

// Errors after which drivers may retry the whole transaction (mongod's
// isTransientTransactionError): the transaction was aborted and nothing of it committed.
bool IsTransientTransactionError(ErrorCode code, std::string_view name,
                                 bool has_write_concern_error) {
  switch (code) {
    case ErrorCode::kWriteConflict:
    case ErrorCode::kSnapshotUnavailable:
    case ErrorCode::kSnapshotTooOld:
      return true;
    case ErrorCode::kNoSuchTransaction:
      // After a commit or abort only when no write concern error leaves the outcome open.
      return !IsCommitOrAbort(name) || !has_write_concern_error;
    default:
      // A statement that failed for want of a primary aborted the transaction with it (a write
      // concern error is no failure of the statement).
      return !IsCommitOrAbort(name) && !has_write_concern_error && IsInCategory(code, kRetriable);
  }
}

// The lsid's 16-byte id, a view of the request; empty when the request names no session.
std::string_view SessionIdOf(const bson::FieldTable& body) {
  bson::ValueView lsid = body.Get("lsid");
  if (lsid.type() != bson::Type::kDocument) return {};
  bson::ValueView id = lsid.Document().Get("id");
  return id.type() == bson::Type::kBinary ? id.Binary().data : std::string_view();
}

// Sets the request's session: its id, and its key with the uid of its user. Under --auth a
// request before authentication is in no session, as mongod attaches none to the commands open
// to it.
Status SetSession(commands::CommandContext& ctx, const bson::FieldTable& body) {
  const std::string_view id = SessionIdOf(body);
  if (id.empty()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(std::optional<std::string_view> uid,
                          commands::SessionUid(ctx, body.Get("lsid").Document().Get("uid")));
  if (!uid.has_value()) return Status::OK();
  std::string key = commands::SessionKey(id, *uid);
  ctx.set_session(std::string(id), std::move(key));
  return Status::OK();
}

// maxTimeMS as mongod reads it: a whole number of milliseconds in [0, 2^31-1]; 0 or absent
// means no limit. BadValue (2) otherwise.
StatusWith<std::int64_t> ParseMaxTimeMS(bson::ValueView value) {
  if (!value.exists() || value.type() == bson::Type::kNull) return std::int64_t{0};
  if (!value.IsNumber()) return Status(ErrorCode::kBadValue, "maxTimeMS must be a number");
  const double millis = value.AsDouble();
  if (!(millis >= 0 && millis <= 2147483647.0)) {
    return Status(ErrorCode::kBadValue, value.ToJson() + " value for maxTimeMS is out of range");
  }
  if (millis != static_cast<double>(static_cast<std::int64_t>(millis))) {
    return Status(ErrorCode::kBadValue, "maxTimeMS has non-integral value");
  }
  return static_cast<std::int64_t>(millis);
}

// The labels mongod puts on an error: a retryable write (one with a txnNumber, outside a
// transaction), a commitTransaction or an abortTransaction that fails with a retriable code
// may be retried by the driver; a transaction that failed transiently may be run again.
std::optional<bson::Document> ErrorLabels(const bson::FieldTable& body, std::string_view name,
                                          ErrorCode code, bool has_write_concern_error = false) {
  const bool in_transaction = IsTransactionRequest(body);
  bson::ArrayBuilder labels;
  bool any = false;
  if (in_transaction && IsTransientTransactionError(code, name, has_write_concern_error)) {
    labels.AppendString("TransientTransactionError");
    any = true;
  }
  const bool retryable = body.Has("txnNumber") && (!in_transaction || IsCommitOrAbort(name));
  if (retryable && IsInCategory(code, kRetriable)) {
    labels.AppendString("RetryableWriteError");
    any = true;
  }
  if (!any) return std::nullopt;
  return std::move(labels).Finish();
}

}  // namespace

Service::Service(commands::ServiceState& state)
    : state_(state),
      sessions_(state.cursors),
      held_writes_(state.fsync_lock),
      workers_(WorkerPool::DefaultThreads(std::thread::hardware_concurrency())) {
  commands::RegisterAllCommands(registry_);
  if (state_.config.enable_test_commands) {
    commands::RegisterTestCommands(registry_);
    fail_points_ = std::make_unique<FailPoints>();
    state_.test_hooks = fail_points_.get();
  }
  state_.registry = &registry_;
  state_.sessions = &sessions_;
}

Status Service::Attach(storage::Engine* engine) {
  sessions_.transactions().Attach(engine, &state_.parameters.transaction_lifetime_limit_seconds,
                                  &state_.transactions);
  return sessions_.retryable_writes().Attach(engine, &state_.transactions);
}

std::unique_ptr<wire::ConnectionHandler> Service::OnConnect(const wire::ConnectionInfo& info) {
  return NewClient(info.id, info.remote);
}

void Service::OnStopping() {
  if (state_.fsync_lock.lock_count() == 0) return;
  log::Write(log::Severity::kWarning, "COMMAND", 20469, "shutdown",
             "Interrupting fsync because the server is shutting down");
  state_.fsync_lock.UnlockAll();
}

bool Service::OnDrainTimedOut() {
  const std::size_t running = state_.operations.KillAllForShutdown();
  log::Write(log::Severity::kWarning, "COMMAND", 4695400, "shutdown",
             "Interrupting the operations still running: the server is shutting down",
             {{"operations", static_cast<std::uint64_t>(running)}});
  return running > 0;
}

std::unique_ptr<wire::ConnectionHandler> Service::NewClient(std::int64_t connection_id,
                                                            std::string remote) {
  return std::make_unique<Client>(*this, connection_id, std::move(remote));
}

Client::Client(Service& service, std::int64_t connection_id, std::string remote)
    : service_(service) {
  connection_.id = connection_id;
  connection_.remote = std::move(remote);
  service_.state().operations.Connect(connection_.id, connection_.remote);
}

Client::~Client() { service_.state().operations.Disconnect(connection_.id); }

// One request on its way through dispatch.
struct Dispatch {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  bool more_to_come = false;
  commands::Request request;
  bson::FieldTable fields;  // the request body's, walked once for dispatch and the command
  const commands::Command* command = nullptr;
  std::optional<FailCommandAction> fail;
  std::optional<Status> write_concern_error;  // unsatisfiable w, reported after the write
  bool close_instead_of_replying = false;     // a test fail point: apply, then drop the reply
  Status status;
  bson::Document body;
  commands::WriteOutcome outcome;
  commands::OperationStats stats;
  // A command that may write runs with a pass of fsync's lock (commands/fsync_lock.h): taken
  // when it arrives, or, while the lock is held, once it is let go.
  bool may_write = false;
  commands::FsyncLock::Pass write_pass;
  // Listed for currentOp from the start of the run until the reply is shaped, while the request
  // it views is alive.
  commands::OperationRegistry::Listed listed;
};

wire::Response Client::Handle(const wire::Request& request) {
  std::promise<wire::Response> promise;
  std::future<wire::Response> reply = promise.get_future();
  HandleAsync(request, [&promise](wire::Response r) { promise.set_value(std::move(r)); });
  return reply.get();
}

void Client::HandleAsync(const wire::Request& request, Completion done) {
  // One per request, and larger than malloc's per-thread cache takes.
  auto d = std::allocate_shared<Dispatch>(RecyclingAllocator<Dispatch>());
  d->more_to_come = request.more_to_come();
  d->request.body = request.body;
  d->fields.Reset(request.body);
  d->request.fields = &d->fields;
  d->request.name =
      d->fields.elements().empty() ? std::string_view() : d->fields.elements().front().key;
  d->request.deepest_nesting = request.deepest_nesting;
  for (const wire::DocumentSequence& sequence : request.sequences) {
    d->request.sequences.push_back({sequence.identifier, &sequence.documents});
  }
  d->status = Resolve(request, d.get());
  bool closed = false;
  if (d->status.ok()) ApplyFailCommand(d.get(), &closed);
  const int block_ms = d->fail.has_value() ? d->fail->block_ms : 0;
  // The request's bytes, which d->request and d->fields view, stay alive until `done` is
  // called: the connection waits for the reply.
  auto proceed = [this, d, closed, block_ms, done = std::move(done)]() mutable {
    if (block_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(block_ms));
    if (closed) {
      wire::Response response;
      response.send = false;
      response.close_after = true;
      done(std::move(response));
    } else if (!d->status.ok()) {
      done(Finish(*d));
    } else {
      Run(std::move(d), std::move(done));
    }
  };
  if (d->status.ok() && !closed) {
    d->may_write = commands::MayWrite(*d->command, d->request);
    if (d->may_write) d->write_pass = service_.state().fsync_lock.TryEnter();
  }
  if (d->may_write && !d->write_pass) {
    service_.held_writes().Start(std::move(proceed));
    return;
  }
  // A failCommand's blockConnection sleeps on a worker, so it blocks this connection only.
  // A transaction's commands may wait for their session, and plain writes for the records open
  // transactions hold: neither may block an io thread.
  const bool may_wait =
      d->status.ok() &&
      (IsTransactionRequest(d->fields) ||
       ((d->command->has(commands::kWritesData) || d->command->has(commands::kChangesStoredData)) &&
        service_.state().TransactionsMayBlockWrites()));
  const bool short_work =
      block_ms == 0 &&
      (closed || !d->status.ok() ||
       (!may_wait && commands::RunsOnIoThread(service_.state(), *d->command, d->request)));
  if (short_work) {
    proceed();
  } else {
    service_.workers().Post(std::move(proceed));
  }
}

Status Client::Resolve(const wire::Request& request, Dispatch* d) {
  if (d->request.name.empty())
    return Status(ErrorCode::kFailedToParse, "Command document is empty");
  const bool over_op_query = request.op_code == wire::OpCode::kQuery;
  if (over_op_query) {
    QUARRY_ASSIGN_OR_RETURN(d->request.db, OpQueryDatabase(request.full_collection_name));
  } else {
    bson::ValueView db = d->fields.Get("$db");
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
  if (over_op_query && !d->command->has(commands::kAllowedOverOpQuery)) {
    return Status(ErrorCode::kUnsupportedOpQueryCommand,
                  "Unsupported OP_QUERY command: " + std::string(d->request.name) +
                      ". The client driver may require an upgrade.");
  }
  if (d->command->has(commands::kAdminOnly) && d->request.db != "admin") {
    return Status(ErrorCode::kUnauthorized,
                  std::string(d->request.name) + " may only be run against the admin database.");
  }
  return Status::OK();
}

// The failCommand fail point (test deployments only) acts before the command runs (its
// blockConnection sleep is HandleAsync's).
void Client::ApplyFailCommand(Dispatch* d, bool* closed) {
  FailPoints* fail_points = service_.fail_points();
  if (fail_points == nullptr || d->command->has(commands::kIgnoresFailCommand)) return;
  d->fail = fail_points->FailCommand(d->request.name, connection_.app_name);
  if (!d->fail.has_value()) return;
  if (d->fail->close_connection) {
    *closed = true;
    return;
  }
  if (d->fail->error_code.has_value()) {
    d->status = Status(static_cast<ErrorCode>(*d->fail->error_code),
                       "Failing command via 'failCommand' failpoint");
  }
}

void Client::Run(std::shared_ptr<Dispatch> d, Completion done) {
  commands::ServiceState& state = service_.state();
  StatusWith<ParsedWriteConcern> wc = ParseWriteConcern(d->fields.Get("writeConcern"));
  if (!wc.ok()) {
    d->status = wc.status();
    done(Finish(*d));
    return;
  }
  StatusWith<std::optional<TransactionRequest>> txn_request = ParseTransactionRequest(
      d->fields, *d->command, SessionIdOf(d->fields), wc.value().concern.explicitly_set);
  if (!txn_request.ok()) {
    d->status = txn_request.status();
    done(Finish(*d));
    return;
  }
  StatusWith<ReadConcern> read_concern =
      ParseReadConcern(d->fields, *d->command, txn_request.value().has_value());
  if (!read_concern.ok()) {
    d->status = read_concern.status();
    done(Finish(*d));
    return;
  }
  if (txn_request.value().has_value() && txn_request.value()->start) {
    txn_request.value()->at_cluster_time = read_concern.value().at_cluster_time;
  }
  commands::CommandContext ctx(state, connection_);
  ctx.set_command_name(d->request.name);
  // With --auth, what the command's descriptor declares it needs (commands/auth/authorizer.h).
  if (Status authorized = commands::CheckAuthorization(ctx, *d->command, d->request);
      !authorized.ok()) {
    d->status = authorized;
    done(Finish(*d));
    return;
  }
  d->listed = state.operations.Begin({.connection_id = connection_.id,
                                      .db = d->request.db,
                                      .command = d->request.body,
                                      .counter = d->command->counter,
                                      .started = d->started,
                                      .interrupt = ctx.interrupt(),
                                      .progress = std::nullopt,
                                      .user = connection_.auth.Name()});
  ctx.set_opid(d->listed.opid());
  commands::WriteConcern concern = wc.value().concern;
  if (d->more_to_come) concern.unacknowledged = true;
  ctx.set_write_concern(concern);
  StatusWith<std::int64_t> max_time = ParseMaxTimeMS(d->fields.Get("maxTimeMS"));
  if (!max_time.ok()) {
    d->status = max_time.status();
    done(Finish(*d));
    return;
  }
  // A getMore's maxTimeMS is how long it may wait for new events, not a limit on its work.
  if (max_time.value() > 0 && d->request.name != "getMore") {
    ctx.set_deadline(d->started + std::chrono::milliseconds(max_time.value()));
    ctx.interrupt()->SetDeadline(*ctx.deadline());
  }
  // The logical session: killSessions can interrupt the operation while it runs.
  if (Status session = SetSession(ctx, d->fields); !session.ok()) {
    d->status = session;
    done(Finish(*d));
    return;
  }
  SessionCatalog::Running running;
  if (!ctx.session_key().empty()) {
    state.operations.SetSession(ctx.opid(), ctx.session_key());
    running = service_.sessions().Start(
        ctx.session_key(), ctx.interrupt(),
        connection_.auth.authenticated() ? connection_.auth.OwnerName() : std::string());
  }
  // A write that arrived while fsync's lock was held waits here, on a thread of its own
  // (HeldWrites), listed as waitingForLock, until fsyncUnlock, killOp, killSessions or its
  // maxTimeMS.
  if (d->may_write && !d->write_pass) {
    state.operations.SetWaitingForLock(ctx.opid(), true);
    StatusWith<commands::FsyncLock::Pass> pass = state.fsync_lock.Enter(*ctx.interrupt());
    state.operations.SetWaitingForLock(ctx.opid(), false);
    if (!pass.ok()) {
      d->status = pass.status();
      done(Finish(*d));
      return;
    }
    d->write_pass = std::move(pass).value();
  }
  // A command of a multi-document transaction holds its session and reads and writes through
  // the transaction.
  std::unique_ptr<Transactions::Statement> statement;
  if (txn_request.value().has_value()) {
    // The session as the catalog keys it: the same lsid of two users is two sessions.
    txn_request.value()->session_id = ctx.session_key();
    txn_request.value()->client =
        state.operations.Connection(connection_.id).value_or(commands::ClientConnection{});
    Status ordered = service_.sessions().CheckTransactionNumber(
        ctx.session_id(), txn_request.value()->txn_number, txn_request.value()->start);
    StatusWith<std::unique_ptr<Transactions::Statement>> entered =
        ordered.ok()
            ? service_.sessions().transactions().Enter(*txn_request.value(), ctx.interrupt().get())
            : StatusWith<std::unique_ptr<Transactions::Statement>>(ordered);
    if (!entered.ok()) {
      d->status = entered.status();
      done(Finish(*d));
      return;
    }
    statement = std::move(entered).value();
    ctx.set_transaction(statement->shared_transaction());
    ctx.set_transaction_reads_local(statement->reads_local());
  } else if (read_concern.value().snapshot) {
    StatusWith<std::unique_ptr<storage::Transaction>> view =
        state.engine->pipeline().BeginSnapshotRead(read_concern.value().at_cluster_time);
    if (!view.ok()) {
      d->status = view.status();
      done(Finish(*d));
      return;
    }
    ctx.set_transaction(std::shared_ptr<storage::Transaction>(std::move(view).value()));
  }
  // A retryable write holds its session: a retry waits for the attempt it repeats, then skips
  // the statements that attempt executed.
  std::unique_ptr<commands::RetryableWrite> retryable;
  bson::ValueView txn_number = d->fields.Get("txnNumber");
  if (statement == nullptr && d->command->has(commands::kRetryableWrite) &&
      txn_number.type() == bson::Type::kInt64 && !ctx.session_id().empty()) {
    Status ordered =
        service_.sessions().CheckRetryableWriteNumber(ctx.session_key(), txn_number.Int64());
    StatusWith<std::unique_ptr<commands::RetryableWrite>> begun =
        ordered.ok()
            ? service_.sessions().retryable_writes().Begin(ctx.session_id(), txn_number.Int64())
            : StatusWith<std::unique_ptr<commands::RetryableWrite>>(ordered);
    if (!begun.ok()) {
      d->status = begun.status();
      done(Finish(*d));
      return;
    }
    retryable = std::move(begun).value();
    ctx.set_retryable_write(retryable.get());
  }
  try {
    StatusWith<bson::Document> result = commands::RunCommand(*d->command, ctx, d->request);
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
  retryable.reset();  // the session is free for the driver's retry
  if (statement == nullptr && ctx.transaction() != nullptr && d->status.ok()) {
    d->body = WithAtClusterTime(std::move(d->body), ctx.transaction()->read_timestamp());
  }
  // The limit bounds this command; the cursor it may have opened keeps the Interrupt, and its
  // getMores are not bound by it.
  ctx.interrupt()->ClearDeadline();
  d->outcome = std::move(ctx.write_outcome());
  d->stats = std::move(ctx.stats());
  // As in mongod, a stopped operation (killed, out of time) fails the whole write command: the
  // statements before it stay applied, but the reply is the interruption, not a write error.
  for (const commands::WriteError& error : d->outcome.errors) {
    if (d->status.ok() && IsInCategory(error.status.code(), kInterruption))
      d->status = error.status;
  }
  if (statement != nullptr) FinishStatement(statement.get(), d.get());
  d->close_instead_of_replying = ctx.close_instead_of_replying();
  if (d->command->has(commands::kWritesData)) d->write_concern_error = wc.value().unsatisfiable;
  commands::CommandContext::DeferredRun deferred = ctx.TakeDeferred();
  if (!deferred || !d->status.ok()) {
    done(Finish(*d));
    return;
  }
  deferred([this, d, done = std::move(done)](StatusWith<bson::Document> result) {
    if (result.ok()) {
      d->body = std::move(result).value();
    } else {
      d->status = result.status();
    }
    done(Finish(*d));
  });
}

// In a transaction a write conflict fails the whole command, as mongod's does (drivers then
// retry the transaction), and any failure, a write error too, aborts the transaction.
void Client::FinishStatement(Transactions::Statement* statement, Dispatch* d) {
  Status failure = d->status;
  for (const commands::WriteError& error : d->outcome.errors) {
    if (failure.ok()) failure = error.status;
    if (d->status.ok() && error.status.code() == ErrorCode::kWriteConflict) {
      d->status = error.status;
    }
  }
  statement->Finish(failure);
}

wire::Response Client::Finish(Dispatch& d) {
  d.listed.Reset();
  d.write_pass.Reset();
  commands::ServiceState& state = service_.state();
  wire::Response reply;
  reply.send = !d.more_to_come && !d.close_instead_of_replying;
  reply.close_after = d.close_instead_of_replying;
  reply.compressible = d.command == nullptr || !d.command->has(commands::kNeverCompressReply);

  std::optional<bson::Document> labels;
  if (d.fail.has_value() && d.fail->error_labels.has_value()) labels = d.fail->error_labels;
  if (d.status.ok()) {
    std::optional<bson::Document> fail_write_concern_error;
    if (d.fail.has_value() && d.fail->write_concern_error.has_value()) {
      fail_write_concern_error = d.fail->write_concern_error;
      bson::ValueView code = fail_write_concern_error->Get("code");
      if (!labels.has_value() && code.IsNumber()) {
        labels = ErrorLabels(d.fields, d.request.name, static_cast<ErrorCode>(code.AsInt64()),
                             /*has_write_concern_error=*/true);
      }
    } else if (!labels.has_value() && d.write_concern_error.has_value()) {
      labels = ErrorLabels(d.fields, d.request.name, d.write_concern_error->code(),
                           /*has_write_concern_error=*/true);
    }
    reply.body = FinishSuccessReply(state, std::move(d.body), d.write_concern_error,
                                    fail_write_concern_error, labels);
  } else {
    if (!labels.has_value()) labels = ErrorLabels(d.fields, d.request.name, d.status.code());
    if (d.status.code() == ErrorCode::kInternalError) {
      log::Write(log::Severity::kError, "COMMAND", 21962, "conn" + std::to_string(connection_.id),
                 "Assertion while executing command",
                 {{"command", std::string(d.request.name)}, {"error", d.status.ToString()}});
    }
    reply.body = BuildErrorReply(state, d.status, labels);
  }
  Account(state, connection_,
          Accounted{.command = d.command,
                    .name = d.request.name,
                    .db = d.request.db,
                    .body = d.request.body,
                    .status = &d.status,
                    .outcome = &d.outcome,
                    .stats = &d.stats,
                    .unacknowledged = d.more_to_come,
                    .elapsed = std::chrono::steady_clock::now() - d.started});
  return reply;
}

}  // namespace quarry::server
