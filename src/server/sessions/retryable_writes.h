// Retryable writes: each session's latest write (its txnNumber) and the statements of it that
// executed, kept in the meta family in the same atomic write as the statements themselves, so
// that a driver's retry (same lsid, same txnNumber) never applies a statement twice, even
// across a crash and restart (docs/formats/storage-layout.md, `session/` records).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"
#include "commands/retryable_write.h"
#include "commands/service_state.h"

namespace quarry::storage {
class Engine;
}  // namespace quarry::storage

namespace quarry::server {

// How long a session may sit idle before drivers stop using it (hello's
// logicalSessionTimeoutMinutes); its records are then of no use.
inline constexpr std::chrono::minutes kSessionTimeout{30};

// The meta names of a session's records: the prefix of them all, and record `seq`. The records
// are those of the session's latest write (or committed transaction), whose number each holds
// (`txn`): a newer write overwrites them from seq 0, so that a session's next write costs one
// record, not a record and the deletion of the one before. A committed transaction keeps one
// record, seq 0 ({txn, at, committed}).
std::string SessionRecordsPrefix(const std::string& session_id);
std::string RecordName(const std::string& session_id, std::uint32_t seq);

// The write number a session record holds, or -1 for bytes that are no record.
std::int64_t RecordTxnNumber(std::string_view value);

class RetryableWrites {
 public:
  // Loads the records a previous run kept: each session's latest write and how many records it
  // has; drops older writes' records and those of sessions idle past the timeout, and rewrites
  // records named the earlier way (with the write's number in the name) in today's form. Call
  // once, before serving. Commands that skip statements an earlier attempt executed, and those
  // statements, are counted in `*metrics` (serverStatus' transactions).
  Status Attach(storage::Engine* engine, commands::TransactionMetrics* metrics);

  // Starts an attempt of write `txn_number` of session `session_id`, once no other operation of
  // the session runs (a retry waits for the attempt it repeats). The session is held until the
  // attempt is destroyed. Fails with TransactionTooOld (225) when the session has already
  // started a newer write, and with the storage error when its records cannot be read.
  StatusWith<std::unique_ptr<commands::RetryableWrite>> Begin(const std::string& session_id,
                                                              std::int64_t txn_number);

  // The number of the session's latest write, -1 when it has started none.
  std::int64_t LatestNumber(const std::string& session_id);

  // Deletes what is kept for the session (endSessions, expiry). Waits for its running attempt.
  void Forget(const std::string& session_id);

 private:
  class Attempt;
  struct Session {
    bool busy = false;              // an attempt holds the session
    std::int64_t txn_number = -1;   // the latest write started
    std::uint32_t records = 0;      // records stored (seq 0..records-1)
    std::int64_t records_txn = -1;  // the write they belong to
  };

  void Release(const std::string& session_id);
  bool BusyLocked(const std::string& session_id) const;  // REQUIRES: mu_ held

  storage::Engine* engine_ = nullptr;
  commands::TransactionMetrics* metrics_ = nullptr;
  std::mutex mu_;
  std::condition_variable released_;
  std::map<std::string, Session> sessions_;  // guarded by mu_
};

}  // namespace quarry::server
