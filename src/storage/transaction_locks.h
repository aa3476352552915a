// The records open transactions have written, each held by the one transaction that wrote it
// until that transaction commits or aborts: a second transaction that writes one fails with a
// write conflict at once (the first writer wins, as in mongod), and a plain write waits until
// the record is free.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/interrupt.h"
#include "base/status.h"

namespace quarry::storage::internal {

using TransactionId = std::uint64_t;  // 0: not a transaction

class TransactionLocks {
 public:
  // Holds `key` for `txn`; false when another transaction holds it.
  bool Acquire(TransactionId txn, std::string_view key);
  // Frees every key `txn` holds and wakes the writers waiting for them.
  void ReleaseAll(TransactionId txn);
  // Whether a transaction other than `txn` holds `key`.
  bool HeldByOther(std::string_view key, TransactionId txn) const;
  // Cheap: whether any transaction holds any key (plain writes check nothing else when none).
  bool any() const { return held_count_.load(std::memory_order_acquire) > 0; }
  // Waits until no transaction holds any of `keys`; fails with the interrupt's status when the
  // operation is stopped first.
  Status WaitUntilFree(const std::vector<std::string_view>& keys, const Interrupt* interrupt);

 private:
  mutable std::mutex mu_;
  std::condition_variable released_;
  std::unordered_map<std::string, TransactionId> holder_;                // guarded by mu_
  std::unordered_map<TransactionId, std::vector<std::string>> held_by_;  // guarded by mu_
  std::atomic<std::size_t> held_count_{0};
};

}  // namespace quarry::storage::internal
