// The logical sessions clients use (by lsid): when each was last used, the operations running
// under it (so killSessions can interrupt them), and, through RetryableWrites, what its
// retryable writes executed. Sessions idle past the timeout expire with their cursors.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/interrupt.h"
#include "commands/session_control.h"
#include "server/sessions/retryable_writes.h"
#include "server/sessions/transactions.h"

namespace quarry::cursors {
class CursorManager;
}  // namespace quarry::cursors

namespace quarry::server {

class SessionCatalog final : public commands::SessionControl {
 public:
  // `cursors` must outlive the catalog.
  explicit SessionCatalog(cursors::CursorManager* cursors) : cursors_(cursors) {}

  RetryableWrites& retryable_writes() { return retryable_writes_; }
  Transactions& transactions() { return transactions_; }

  // A session's retryable writes and transactions share one order of txnNumbers, as mongod's
  // (`id` keys retryable writes, `key` transactions; commands/command_context.h):
  // TransactionTooOld (225) for a number below the other kind's latest; a retryable write at a
  // transaction's number is IncompleteTransactionHistory (217), and a transaction cannot start
  // at a retryable write's (117).
  Status CheckRetryableWriteNumber(const std::string& key, std::int64_t txn_number);
  Status CheckTransactionNumber(const std::string& id, std::int64_t txn_number, bool start);

  // An operation of session `key` (commands::SessionKey) that killSessions interrupts through
  // `interrupt`, for as long as the returned registration lives. Counts as a use of the session;
  // `user` ("user@db", empty without --auth) is what $listLocalSessions shows of its user.
  class Running {
   public:
    Running() = default;
    Running(Running&& other) noexcept;
    Running& operator=(Running&& other) noexcept;
    ~Running();

   private:
    friend class SessionCatalog;
    Running(SessionCatalog* catalog, std::string id, Interrupt* interrupt)
        : catalog_(catalog), id_(std::move(id)), interrupt_(interrupt) {}
    SessionCatalog* catalog_ = nullptr;
    std::string id_;
    Interrupt* interrupt_ = nullptr;
  };
  Running Start(const std::string& key, std::shared_ptr<Interrupt> interrupt,
                std::string_view user = {});

  // Ends sessions idle since before `now` minus the timeout: their cursors are killed and what
  // they kept of their retryable writes deleted. Returns how many. Also aborts transactions
  // open past their lifetime limit.
  std::size_t ReapExpired(std::chrono::system_clock::time_point now);

  void End(const std::string& id) override;
  void Refresh(const std::string& id) override;
  void Kill(const std::string& id) override;
  void KillOfUser(const std::string& uid) override;
  void KillAll() override;
  std::vector<commands::LocalSession> List() const override;
  std::vector<commands::OpenTransaction> OpenTransactions() const override {
    return transactions_.List();
  }

 private:
  // Bounds the memory a client can make the server spend on sessions it never ends.
  static constexpr std::size_t kMaxSessions = 1000000;

  struct Entry {
    std::int64_t last_use_ms = 0;
    std::vector<std::shared_ptr<Interrupt>> running;
    bool ended = false;  // endSessions came while operations ran: forget it when they are done
    std::string user;    // "user@db", empty without --auth
  };
  void Touch(const std::string& id);  // REQUIRES: mu_ held
  void Finish(const std::string& id, Interrupt* interrupt);

  cursors::CursorManager* cursors_;
  RetryableWrites retryable_writes_;
  Transactions transactions_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> sessions_;  // guarded by mu_
};

}  // namespace quarry::server
