#include "server/sessions/transactions.h"

#include <utility>

#include "base/clock.h"
#include "bson/builder.h"
#include "commands/session_control.h"
#include "server/sessions/retryable_writes.h"
#include "storage/engine.h"

namespace quarry::server {
namespace {

std::string Number(std::int64_t n) { return std::to_string(n); }

Status NotInProgress(std::int64_t asked, std::int64_t active) {
  return Status(ErrorCode::kNoSuchTransaction,
                "Given transaction number " + Number(asked) +
                    " does not match any in-progress transactions. The active transaction "
                    "number is " +
                    Number(active));
}

Status Aborted(std::int64_t txn_number) {
  return Status(ErrorCode::kNoSuchTransaction,
                "Transaction with { txnNumber: " + Number(txn_number) + " } has been aborted.");
}

// The record a commit leaves in meta, so that the commit retried after a restart succeeds.
std::pair<std::string, std::string> CommitRecord(const std::string& session_id,
                                                 std::int64_t txn_number) {
  bson::DocumentBuilder b;
  b.AppendInt64("txn", txn_number);
  b.AppendDate("at", NowMillis());
  b.AppendBool("committed", true);
  // Recorded under the lsid's id alone, as retryable writes are, in place of the session's
  // previous records.
  return {RecordName(std::string(commands::SessionIdOfKey(session_id)), 0),
          std::move(b).FinishBytes()};
}

Status Committed(std::int64_t txn_number) {
  return Status(ErrorCode::kTransactionCommitted,
                "Transaction with { txnNumber: " + Number(txn_number) + " } has been committed.");
}

}  // namespace

Transactions::Statement::~Statement() {
  if (!finished_) Finish(Status(ErrorCode::kInternalError, "the command did not finish"));
}

void Transactions::Statement::Finish(const Status& status) {
  if (finished_) return;
  finished_ = true;
  owner_->Leave(session_id_, request_, status);
}

StatusWith<std::unique_ptr<Transactions::Statement>> Transactions::Enter(
    const TransactionRequest& request, const Interrupt* interrupt) {
  std::unique_lock lock(mu_);
  // The session runs one command at a time, as mongod checks a session out. Looked up again
  // after each wait: Forget (endSessions, expiry) may erase the entry meanwhile.
  auto entry = sessions_.try_emplace(request.session_id).first;
  while (entry->second.busy) {
    if (interrupt != nullptr) QUARRY_RETURN_IF_ERROR(interrupt->Check());
    released_.wait_for(lock, std::chrono::milliseconds(50));
    entry = sessions_.try_emplace(request.session_id).first;
  }
  Session& session = entry->second;
  const std::int64_t asked = request.txn_number;
  if (asked < session.txn_number) {
    return Status(ErrorCode::kTransactionTooOld, "Cannot start transaction " + Number(asked) +
                                                     " on session because a newer transaction " +
                                                     Number(session.txn_number) +
                                                     " has already started.");
  }
  if (request.start) {
    if (asked == session.txn_number) {
      return Status(ErrorCode::kConflictingOperationInProgress,
                    "Only servers in a sharded cluster can start a new transaction at the active "
                    "transaction number");
    }
    StatusWith<std::unique_ptr<storage::Transaction>> begun =
        request.at_cluster_time.has_value()
            ? engine_->pipeline().BeginTransactionAt(request.lsid, asked, *request.at_cluster_time)
            : engine_->pipeline().BeginTransaction(request.lsid, asked);
    AbortLocked(&session);
    session.txn_number = asked;
    if (!begun.ok()) {
      session.state = State::kAborted;  // as mongod's, whose first statement failed
      return begun.status();
    }
    session.state = State::kInProgress;
    session.txn = std::move(begun).value();
    auto [name, value] = CommitRecord(request.session_id, asked);
    session.txn->SetCommitRecord(std::move(name), std::move(value));
    session.started = std::chrono::steady_clock::now();
    session.start_wall_ms = NowMillis();
    session.read_concern = request.read_concern;
    session.reads_snapshot = request.reads_snapshot;
    session.active_before = {};
    Count(&commands::TransactionMetrics::total_started, 1);
    Count(&commands::TransactionMetrics::current_open, 1);
  } else {
    // A commit retried after a restart finds its record, not its session.
    if (request.commit && asked > session.txn_number && CommitRecorded(request.session_id, asked)) {
      session.txn_number = asked;
      session.state = State::kCommitted;
    }
    if (asked != session.txn_number || session.state == State::kNone) {
      return NotInProgress(asked, session.txn_number);
    }
    if (session.state == State::kAborted) return Aborted(asked);
    if (session.state == State::kCommitted && !request.commit) return Committed(asked);
  }
  session.busy = true;
  if (session.state == State::kInProgress) {
    session.active_since = std::chrono::steady_clock::now();
    session.counted_active = true;
    session.last_client = request.client;
    Count(&commands::TransactionMetrics::current_active, 1);
  }
  std::shared_ptr<storage::Transaction> txn =
      session.state == State::kInProgress ? session.txn : nullptr;
  const bson::ValueView level = session.read_concern.view().Get("level");
  const bool reads_local =
      !level.exists() || (level.type() == bson::Type::kString && level.String() == "local");
  return std::unique_ptr<Statement>(
      new Statement(this, request.session_id, request, std::move(txn), reads_local));
}

void Transactions::Leave(const std::string& session_id, const TransactionRequest& request,
                         const Status& status) {
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return;
    Session& session = it->second;
    session.busy = false;
    if (session.counted_active) {
      session.counted_active = false;
      session.active_before += std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - session.active_since);
      Count(&commands::TransactionMetrics::current_active, -1);
    }
    if (session.txn_number == request.txn_number && session.state == State::kInProgress) {
      if (request.commit && status.ok()) {
        session.txn.reset();  // cursors it opened keep their view alive
        session.state = State::kCommitted;
        ForgetReport(&session);
        Count(&commands::TransactionMetrics::total_committed, 1);
        Count(&commands::TransactionMetrics::current_open, -1);
      } else if (request.abort || !status.ok()) {
        AbortLocked(&session);
      }
    }
  }
  released_.notify_all();
}

void Transactions::AbortLocked(Session* session) {
  if (session->state != State::kInProgress) return;
  if (session->txn != nullptr) session->txn->End(/*committed=*/false);
  session->txn.reset();
  session->state = State::kAborted;
  ForgetReport(session);
  Count(&commands::TransactionMetrics::total_aborted, 1);
  Count(&commands::TransactionMetrics::current_open, -1);
}

void Transactions::ForgetReport(Session* session) {
  session->read_concern = bson::Document();
  session->last_client = commands::ClientConnection();
}

void Transactions::Count(std::atomic<std::int64_t> commands::TransactionMetrics::*counter,
                         int delta) {
  if (metrics_ != nullptr) (metrics_->*counter).fetch_add(delta);
}

std::int64_t Transactions::LatestNumber(const std::string& session_id) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(session_id);
  return it == sessions_.end() || it->second.state == State::kNone ? -1 : it->second.txn_number;
}

void Transactions::Abort(const std::string& session_id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(session_id);
  if (it != sessions_.end() && !it->second.busy) AbortLocked(&it->second);
}

void Transactions::Forget(const std::string& session_id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(session_id);
  if (it == sessions_.end() || it->second.busy) return;
  AbortLocked(&it->second);
  sessions_.erase(it);
}

void Transactions::AbortAll() {
  std::lock_guard lock(mu_);
  for (auto& [id, session] : sessions_) AbortLocked(&session);
}

std::size_t Transactions::AbortExpired() {
  const auto limit = std::chrono::seconds(LifetimeLimitSeconds());
  const auto now = std::chrono::steady_clock::now();
  std::size_t aborted = 0;
  std::lock_guard lock(mu_);
  for (auto& [id, session] : sessions_) {
    if (session.state == State::kInProgress && !session.busy && now - session.started > limit) {
      AbortLocked(&session);
      ++aborted;
    }
  }
  return aborted;
}

std::vector<commands::OpenTransaction> Transactions::List() const {
  const auto now = std::chrono::steady_clock::now();
  const std::int64_t limit_ms = LifetimeLimitSeconds() * 1000;
  std::lock_guard lock(mu_);
  std::vector<commands::OpenTransaction> list;
  for (const auto& [id, session] : sessions_) {
    if (session.state != State::kInProgress) continue;
    std::chrono::microseconds active = session.active_before;
    if (session.counted_active) {
      active += std::chrono::duration_cast<std::chrono::microseconds>(now - session.active_since);
    }
    list.push_back(
        {.session_key = id,
         .txn_number = session.txn_number,
         .read_concern = session.read_concern,
         // mongod reads at a chosen timestamp only at level snapshot; local and majority read
         // the latest data and show Timestamp(0, 0).
         .read_timestamp =
             session.reads_snapshot && session.txn != nullptr ? session.txn->read_timestamp() : 0,
         .start_wall_ms = session.start_wall_ms,
         .expiry_wall_ms = session.start_wall_ms + limit_ms,
         .open_micros =
             std::chrono::duration_cast<std::chrono::microseconds>(now - session.started).count(),
         .active_micros = active.count(),
         .active = session.busy,
         .last_client = session.last_client});
  }
  return list;
}

bool Transactions::CommitRecorded(const std::string& session_id, std::int64_t txn_number) const {
  if (engine_ == nullptr) return false;
  StatusWith<std::optional<std::string>> record =
      engine_->meta().Get(RecordName(std::string(commands::SessionIdOfKey(session_id)), 0));
  if (!record.ok() || !record.value().has_value()) return false;
  const std::string& bytes = *record.value();
  if (RecordTxnNumber(bytes) != txn_number) return false;
  bson::ValueView committed = bson::DocumentView(bytes.data()).Get("committed");
  return committed.type() == bson::Type::kBool && committed.Bool();
}

}  // namespace quarry::server
