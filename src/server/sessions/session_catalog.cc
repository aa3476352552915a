#include "server/sessions/session_catalog.h"

#include <algorithm>
#include <utility>

#include "base/clock.h"
#include "cursors/cursor_manager.h"

namespace quarry::server {

SessionCatalog::Running::Running(Running&& other) noexcept
    : catalog_(std::exchange(other.catalog_, nullptr)),
      id_(std::move(other.id_)),
      interrupt_(other.interrupt_) {}

SessionCatalog::Running& SessionCatalog::Running::operator=(Running&& other) noexcept {
  if (this != &other) {
    if (catalog_ != nullptr) catalog_->Finish(id_, interrupt_);
    catalog_ = std::exchange(other.catalog_, nullptr);
    id_ = std::move(other.id_);
    interrupt_ = other.interrupt_;
  }
  return *this;
}

SessionCatalog::Running::~Running() {
  if (catalog_ != nullptr) catalog_->Finish(id_, interrupt_);
}

void SessionCatalog::Touch(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    if (sessions_.size() >= kMaxSessions) return;
    it = sessions_.emplace(id, Entry{}).first;
  }
  it->second.last_use_ms = NowMillis();
  it->second.ended = false;  // used again after endSessions: the session lives on
}

SessionCatalog::Running SessionCatalog::Start(const std::string& id,
                                              std::shared_ptr<Interrupt> interrupt,
                                              std::string_view user) {
  std::lock_guard lock(mu_);
  Touch(id);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return Running();  // past the limit: not tracked
  if (it->second.user.empty() && !user.empty()) it->second.user = std::string(user);
  Interrupt* raw = interrupt.get();
  it->second.running.push_back(std::move(interrupt));
  return Running(this, id, raw);
}

void SessionCatalog::Finish(const std::string& id, Interrupt* interrupt) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  std::erase_if(it->second.running, [interrupt](const std::shared_ptr<Interrupt>& running) {
    return running.get() == interrupt;
  });
  if (it->second.ended && it->second.running.empty()) sessions_.erase(it);
}

void SessionCatalog::Refresh(const std::string& id) {
  std::lock_guard lock(mu_);
  Touch(id);
}

void SessionCatalog::Kill(const std::string& id) {
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(id);
    if (it != sessions_.end()) {
      for (const std::shared_ptr<Interrupt>& running : it->second.running) running->Kill();
    }
  }
  if (!id.empty()) cursors_->KillSession(id);
  transactions_.Abort(id);
}

void SessionCatalog::KillOfUser(const std::string& uid) {
  std::vector<std::string> killed;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, entry] : sessions_) {
      if (commands::SessionUidOfKey(key) != uid) continue;
      for (const std::shared_ptr<Interrupt>& running : entry.running) running->Kill();
      killed.push_back(key);
    }
  }
  for (const std::string& key : killed) {
    cursors_->KillSession(key);
    transactions_.Abort(key);
  }
}

void SessionCatalog::KillAll() {
  {
    std::lock_guard lock(mu_);
    for (auto& [id, entry] : sessions_) {
      for (const std::shared_ptr<Interrupt>& running : entry.running) running->Kill();
    }
  }
  cursors_->KillSession("");
  transactions_.AbortAll();
}

void SessionCatalog::End(const std::string& id) {
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(id);
    // A session ended while an operation of it runs is forgotten once that operation is done.
    if (it != sessions_.end()) {
      if (it->second.running.empty()) {
        sessions_.erase(it);
      } else {
        it->second.ended = true;
      }
    }
  }
  transactions_.Forget(id);
  // Retryable writes are recorded under the lsid's id alone (their durable format predates
  // users).
  retryable_writes_.Forget(std::string(commands::SessionIdOfKey(id)));
}

std::size_t SessionCatalog::ReapExpired(std::chrono::system_clock::time_point now) {
  transactions_.AbortExpired();
  const std::int64_t oldest_kept =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() -
      std::chrono::duration_cast<std::chrono::milliseconds>(kSessionTimeout).count();
  std::vector<std::string> expired;
  {
    std::lock_guard lock(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second.last_use_ms < oldest_kept && it->second.running.empty()) {
        expired.push_back(it->first);
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const std::string& id : expired) {
    cursors_->KillSession(id);
    transactions_.Forget(id);
    retryable_writes_.Forget(std::string(commands::SessionIdOfKey(id)));
  }
  return expired.size();
}

std::vector<commands::LocalSession> SessionCatalog::List() const {
  std::lock_guard lock(mu_);
  std::vector<commands::LocalSession> sessions;
  sessions.reserve(sessions_.size());
  for (const auto& [key, entry] : sessions_) {
    sessions.push_back({key, entry.last_use_ms, entry.user});
  }
  return sessions;
}

Status SessionCatalog::CheckRetryableWriteNumber(const std::string& key, std::int64_t txn_number) {
  const std::int64_t transaction = transactions_.LatestNumber(key);
  if (txn_number < transaction) {
    return Status(ErrorCode::kTransactionTooOld,
                  "Retryable write with txnNumber " + std::to_string(txn_number) +
                      " is prohibited on session because a newer transaction with txnNumber " +
                      std::to_string(transaction) + " has already started on this session.");
  }
  if (txn_number == transaction) {
    return Status(ErrorCode::kIncompleteTransactionHistory,
                  "Cannot retry a retryable write that has been converted into a transaction");
  }
  return Status::OK();
}

Status SessionCatalog::CheckTransactionNumber(const std::string& id, std::int64_t txn_number,
                                              bool start) {
  const std::int64_t write = retryable_writes_.LatestNumber(id);
  if (txn_number < write) {
    return Status(ErrorCode::kTransactionTooOld,
                  "Cannot start transaction " + std::to_string(txn_number) +
                      " on session because a newer retryable write with txnNumber " +
                      std::to_string(write) + " has already started on this session.");
  }
  if (start && txn_number == write) {
    return Status(ErrorCode::kConflictingOperationInProgress,
                  "Only servers in a sharded cluster can start a new transaction at the active "
                  "transaction number");
  }
  return Status::OK();
}

}  // namespace quarry::server
