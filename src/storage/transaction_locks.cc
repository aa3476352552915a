#include "storage/transaction_locks.h"

#include <chrono>

namespace quarry::storage::internal {

bool TransactionLocks::Acquire(TransactionId txn, std::string_view key) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = holder_.try_emplace(std::string(key), txn);
  if (!inserted) return it->second == txn;
  held_by_[txn].emplace_back(key);
  held_count_.fetch_add(1, std::memory_order_release);
  return true;
}

void TransactionLocks::ReleaseAll(TransactionId txn) {
  {
    std::lock_guard lock(mu_);
    auto held = held_by_.find(txn);
    if (held == held_by_.end()) return;
    for (const std::string& key : held->second) holder_.erase(key);
    held_count_.fetch_sub(held->second.size(), std::memory_order_release);
    held_by_.erase(held);
  }
  released_.notify_all();
}

bool TransactionLocks::HeldByOther(std::string_view key, TransactionId txn) const {
  if (!any()) return false;
  std::lock_guard lock(mu_);
  auto it = holder_.find(std::string(key));
  return it != holder_.end() && it->second != txn;
}

Status TransactionLocks::WaitUntilFree(const std::vector<std::string_view>& keys,
                                       const Interrupt* interrupt) {
  std::unique_lock lock(mu_);
  auto all_free = [&] {
    for (std::string_view key : keys) {
      if (holder_.contains(std::string(key))) return false;
    }
    return true;
  };
  // A transaction ends within its lifetime limit; the wake-ups in between check the interrupt.
  while (!all_free()) {
    if (interrupt != nullptr) QUARRY_RETURN_IF_ERROR(interrupt->Check());
    released_.wait_for(lock, std::chrono::milliseconds(50));
  }
  return Status::OK();
}

}  // namespace quarry::storage::internal
