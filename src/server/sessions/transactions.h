// Multi-document transactions by logical session, with mongod's rules for a command that
// carries `autocommit: false`: which transaction number it may start or continue, what it may
// do once the transaction has committed or aborted, and that any failure inside a transaction
// aborts it. The storage transaction behind each one (storage/transaction.h) is begun here;
// handlers read and write through it, and commitTransaction commits it (commands/).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/interrupt.h"
#include "base/status.h"
#include "bson/value.h"
#include "commands/service_state.h"
#include "commands/session_control.h"
#include "storage/transaction.h"

namespace quarry::storage {
class Engine;
}  // namespace quarry::storage

namespace quarry::server {

// What a command of a transaction says about it: its generic arguments.
struct TransactionRequest {
  std::string session_id;  // the session as the catalog keys it (commands/session_control.h)
  bson::DocumentView lsid;
  std::int64_t txn_number = 0;
  bool start = false;        // startTransaction: true
  std::string_view command;  // its name
  bool commit = false;       // commitTransaction
  bool abort = false;        // abortTransaction
  // What currentOp shows of it: the first command's readConcern as mongod reports it
  // (transaction_arguments.h), whether it reads a snapshot, and the connection sending it.
  bson::Document read_concern;
  bool reads_snapshot = false;
  commands::ClientConnection client;
  // The first command's readConcern atClusterTime: the transaction reads the data as of then.
  std::optional<storage::Timestamp> at_cluster_time;
};

class Transactions {
 public:
  // Commits persist a record under `session/` (as retryable writes do), so that a commit
  // retried after a restart still succeeds. A transaction open longer than
  // `*lifetime_limit_seconds` (transactionLifetimeLimitSeconds, which setParameter changes) is
  // aborted. Transactions started, committed, aborted, open and active are counted in
  // `*metrics` (serverStatus' transactions). Call once, before serving.
  void Attach(storage::Engine* engine, const std::atomic<std::int64_t>* lifetime_limit_seconds,
              commands::TransactionMetrics* metrics) {
    engine_ = engine;
    lifetime_limit_seconds_ = lifetime_limit_seconds;
    metrics_ = metrics;
  }

  // One command of a transaction, holding its session until destroyed.
  class Statement {
   public:
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    // The storage transaction; null when the command is a commit retried after the commit.
    storage::Transaction* transaction() const { return txn_.get(); }
    const std::shared_ptr<storage::Transaction>& shared_transaction() const { return txn_; }
    // Whether the transaction reads with readConcern level local (its first command's, or
    // the default): mongod creates collections and indexes only in such a transaction.
    bool reads_local() const { return reads_local_; }
    // After the command: a failure aborts the transaction, a commit or abort ends it.
    void Finish(const Status& status);

   private:
    friend class Transactions;
    Statement(Transactions* owner, std::string session_id, TransactionRequest request,
              std::shared_ptr<storage::Transaction> txn, bool reads_local)
        : owner_(owner),
          session_id_(std::move(session_id)),
          request_(std::move(request)),
          txn_(std::move(txn)),
          reads_local_(reads_local) {}
    Transactions* owner_;
    std::string session_id_;
    TransactionRequest request_;
    std::shared_ptr<storage::Transaction> txn_;
    bool reads_local_ = true;
    bool finished_ = false;
  };

  // Starts or continues the transaction the request names, once no other command of the
  // session runs (waiting for it, stopped by `interrupt`). mongod's errors: TransactionTooOld
  // (225) for an older txnNumber, NoSuchTransaction (251) for one not in progress or aborted,
  // TransactionCommitted (256) for a command other than commitTransaction after the commit,
  // ConflictingOperationInProgress (117) to start one at the active number.
  StatusWith<std::unique_ptr<Statement>> Enter(const TransactionRequest& request,
                                               const Interrupt* interrupt);

  // The number of the session's latest transaction, -1 when it has started none.
  std::int64_t LatestNumber(const std::string& session_id) const;

  // Aborts the session's transaction in progress (killSessions, endSessions, expiry).
  void Abort(const std::string& session_id);
  // Aborts and forgets the session (endSessions, expiry), unless a command of it is running.
  void Forget(const std::string& session_id);
  void AbortAll();
  // Aborts transactions open longer than the lifetime limit; returns how many.
  std::size_t AbortExpired();
  // Every transaction in progress, as currentOp shows it.
  std::vector<commands::OpenTransaction> List() const;

 private:
  enum class State : std::uint8_t { kNone, kInProgress, kCommitted, kAborted };
  struct Session {
    std::int64_t txn_number = -1;
    State state = State::kNone;
    std::shared_ptr<storage::Transaction> txn;  // while in progress
    bool busy = false;                          // a command of it runs
    std::chrono::steady_clock::time_point started;
    std::int64_t start_wall_ms = 0;
    // What currentOp shows of the transaction in progress.
    bson::Document read_concern;
    bool reads_snapshot = false;
    std::chrono::microseconds active_before{0};  // its earlier commands' time
    std::chrono::steady_clock::time_point active_since;
    bool counted_active = false;  // counted in current_active while its command runs
    commands::ClientConnection last_client;
  };

  void Leave(const std::string& session_id, const TransactionRequest& request,
             const Status& status);
  // Ends the transaction in progress without committing. REQUIRES: mu_ held.
  void AbortLocked(Session* session);
  // Drops what currentOp showed of a transaction that ended: sessions stay listed here.
  static void ForgetReport(Session* session);
  // Counts in the metrics, when attached. REQUIRES: mu_ held.
  void Count(std::atomic<std::int64_t> commands::TransactionMetrics::*counter, int delta);
  // Whether a commit of this transaction was recorded (a commit retried after a restart).
  bool CommitRecorded(const std::string& session_id, std::int64_t txn_number) const;

  storage::Engine* engine_ = nullptr;
  const std::atomic<std::int64_t>* lifetime_limit_seconds_ = nullptr;
  commands::TransactionMetrics* metrics_ = nullptr;
  std::int64_t LifetimeLimitSeconds() const {
    return lifetime_limit_seconds_ != nullptr ? lifetime_limit_seconds_->load() : 60;
  }
  mutable std::mutex mu_;
  std::condition_variable released_;
  std::map<std::string, Session> sessions_;  // guarded by mu_
};

}  // namespace quarry::server
