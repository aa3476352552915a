// What a command handler gets: the service, its connection's state, and the request's generic
// arguments already parsed by server/.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/interrupt.h"
#include "base/status.h"
#include "bson/value.h"
#include "commands/auth/connection_auth.h"
#include "commands/namespace_usage.h"
#include "commands/retryable_write.h"
#include "commands/service_state.h"
#include "commands/write_outcome.h"

namespace quarry::storage {
class Transaction;
}  // namespace quarry::storage

namespace quarry::commands {

// The outcome of a connection's last write, for the legacy getLastError command.
struct LastWrite {
  bool present = false;
  std::int64_t n = 0;
  bool updated_existing = false;
  std::optional<bson::Document> upserted;  // {_id: value}
  std::string error;                       // empty: no error
  std::int32_t code = 0;
  std::string code_name;
};

// What an operation's plans did and what it returned, for the profiler, the slow-operation log
// and serverStatus' metrics.document.returned and metrics.operation.
struct OperationStats {
  std::int64_t keys_examined = 0;
  std::int64_t docs_examined = 0;
  // Documents in the reply's batch, for the commands that return query results (find,
  // getMore, aggregate); nullopt for the others.
  std::optional<std::int64_t> nreturned;
  std::int64_t write_conflicts = 0;
  bool has_sort_stage = false;  // a plan sorted in memory
  std::string plan_summary;     // empty when no plan ran
};

struct ConnectionState {
  std::int64_t id = 0;
  std::string remote;                    // "ip:port"
  std::vector<std::string> compressors;  // negotiated in the handshake, client's order
  bool handshake_done = false;
  std::string app_name;  // client.application.name from the handshake
  LastWrite last_write;
  ConnectionAuth auth;
  NamespaceUsage::Handle top_handle;  // the namespace its last command counted for in top
};

// writeConcern as sent, after validation by server/.
struct WriteConcern {
  bool unacknowledged = false;  // w: 0
  bool journal = false;         // j: true, or w: "majority" (a one-member set journals)
  bool explicitly_set = false;
};

class CommandContext {
 public:
  CommandContext(ServiceState& service, ConnectionState& connection)
      : service_(service), connection_(connection) {}

  ServiceState& service() { return service_; }
  ConnectionState& connection() { return connection_; }
  const ConnectionState& connection() const { return connection_; }
  storage::Engine& engine() { return *service_.engine; }
  catalog::Catalog& catalog() { return *service_.catalog; }
  cursors::CursorManager& cursors() { return *service_.cursors; }

  const WriteConcern& write_concern() const { return write_concern_; }
  void set_write_concern(WriteConcern wc) { write_concern_ = wc; }

  // A command that must wait (a change stream's getMore) returns any document after calling
  // Defer: server/ then runs `run` with a completion, which may be called later from any
  // thread with the real result. Everything `run` uses must be captured by value.
  using Completion = std::function<void(StatusWith<bson::Document>)>;
  using DeferredRun = std::function<void(Completion)>;
  void Defer(DeferredRun run) { deferred_ = std::move(run); }
  DeferredRun TakeDeferred() { return std::move(deferred_); }

  // The command's name as the request spelled it.
  std::string_view command_name() const { return command_name_; }
  void set_command_name(std::string_view name) { command_name_ = name; }

  // The request's logical session: the lsid's 16-byte id (what retryable writes are recorded
  // under), and its key with the session's user (commands/session_control.h: what killSessions
  // kills and cursors belong to); both empty without one.
  const std::string& session_id() const { return session_id_; }
  const std::string& session_key() const { return session_key_; }
  void set_session(std::string id, std::string key) {
    session_id_ = std::move(id);
    session_key_ = std::move(key);
  }

  // Set when the request is a retryable write (lsid and txnNumber, outside a transaction).
  RetryableWrite* retryable_write() const { return retryable_write_; }
  void set_retryable_write(RetryableWrite* retryable) { retryable_write_ = retryable; }

  // The multi-document transaction the request runs in (autocommit: false), or null. server/
  // starts, continues and ends it; handlers read and write through it.
  storage::Transaction* transaction() const { return transaction_.get(); }
  const std::shared_ptr<storage::Transaction>& shared_transaction() const { return transaction_; }
  // Whether the transaction reads with readConcern level local (collections and indexes may
  // be created only then).
  bool transaction_reads_local() const { return transaction_reads_local_; }
  void set_transaction_reads_local(bool reads_local) { transaction_reads_local_ = reads_local; }
  void set_transaction(std::shared_ptr<storage::Transaction> transaction) {
    transaction_ = std::move(transaction);
  }

  // Write commands report what they did here (reply, getLastError, opcounters).
  WriteOutcome& write_outcome() { return write_outcome_; }
  const WriteOutcome& write_outcome() const { return write_outcome_; }

  // The handler adds what its replies' batches return; RunCommand the plans' work.
  OperationStats& stats() { return stats_; }

  // After this request the connection closes instead of replying (a test fail point).
  void CloseConnectionInsteadOfReplying() { close_instead_of_replying_ = true; }
  bool close_instead_of_replying() const { return close_instead_of_replying_; }

  // How the operation is told to stop (killSessions); plans and cursors keep it.
  const std::shared_ptr<Interrupt>& interrupt() const { return interrupt_; }
  void set_interrupt(std::shared_ptr<Interrupt> interrupt) { interrupt_ = std::move(interrupt); }

  // The opid under which currentOp lists this request (0: not listed).
  std::int32_t opid() const { return opid_; }
  void set_opid(std::int32_t opid) { opid_ = opid; }
  // Reads through `interrupt` from now on, and killOp stops it (a getMore reads through the
  // Interrupt of the command that opened its cursor).
  void UseInterrupt(std::shared_ptr<Interrupt> interrupt) {
    if (interrupt == nullptr) return;
    interrupt_ = std::move(interrupt);
    service_.operations.SetInterrupt(opid_, interrupt_);
  }
  // What currentOp shows of a long operation's progress (an index build's).
  void ReportProgress(OperationProgress progress) {
    service_.operations.SetProgress(opid_, std::move(progress));
  }

  // maxTimeMS, when the request gave one.
  std::optional<std::chrono::steady_clock::time_point> deadline() const { return deadline_; }
  void set_deadline(std::chrono::steady_clock::time_point d) { deadline_ = d; }

 private:
  ServiceState& service_;
  ConnectionState& connection_;
  WriteConcern write_concern_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  DeferredRun deferred_;
  std::shared_ptr<Interrupt> interrupt_ = std::make_shared<Interrupt>();
  std::string_view command_name_;
  std::string session_id_;
  std::string session_key_;
  RetryableWrite* retryable_write_ = nullptr;
  std::shared_ptr<storage::Transaction> transaction_;
  bool transaction_reads_local_ = true;
  std::int32_t opid_ = 0;
  WriteOutcome write_outcome_;
  OperationStats stats_;
  bool close_instead_of_replying_ = false;
};

}  // namespace quarry::commands
