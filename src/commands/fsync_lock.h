// fsync's lock: while it is held, commands that change stored data wait, and everything else
// (reads, currentOp, fsyncUnlock) goes on. Locks nest, as mongod's lockCount does. A command
// that may write takes a pass for as long as it runs; taking the lock closes the gate to new
// passes and waits for those out to come back, so once `fsync {lock: true}` answers, nothing
// writes until the last fsyncUnlock.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>

#include "base/interrupt.h"
#include "base/status.h"

namespace quarry::commands {

struct Command;
struct Request;

// Whether `request` may change stored data: the write commands, the catalog, index, user and
// role commands (kChangesStoredData), and aggregations that end in $out or $merge.
bool MayWrite(const Command& command, const Request& request);

class FsyncLock {
 public:
  FsyncLock() = default;
  FsyncLock(const FsyncLock&) = delete;
  FsyncLock& operator=(const FsyncLock&) = delete;

  // Leave to let writes go on. Movable; empty when default-built.
  class Pass {
   public:
    Pass() = default;
    Pass(Pass&& other) noexcept : lock_(std::exchange(other.lock_, nullptr)) {}
    Pass& operator=(Pass&& other) noexcept;
    ~Pass() { Reset(); }
    void Reset();
    explicit operator bool() const { return lock_ != nullptr; }

   private:
    friend class FsyncLock;
    explicit Pass(FsyncLock* lock) : lock_(lock) {}
    FsyncLock* lock_ = nullptr;
  };

  // A pass at once, or an empty one while the lock is held or being taken.
  Pass TryEnter();
  // Waits until no lock is held, then takes a pass. Fails with the interrupt's error (killOp,
  // maxTimeMS) if it comes first.
  StatusWith<Pass> Enter(const Interrupt& interrupt);

  // Takes one more lock. The first waits for the passes out to come back (failing with the
  // interrupt's error if it comes first), then runs `flush` with writes held; if that fails the
  // lock is not taken. Returns the lock count.
  StatusWith<std::int64_t> Lock(const Interrupt& interrupt, const std::function<Status()>& flush);
  // Lets go of one lock; the last one lets the waiting writes go on. Returns the lock count
  // left, or IllegalOperation (mongod's) when nothing is locked.
  StatusWith<std::int64_t> Unlock();
  // Lets go of every lock (shutdown).
  void UnlockAll();

  std::int64_t lock_count() const;

 private:
  void Leave();
  bool closed() const { return taking_ || lock_count_ > 0; }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::int64_t lock_count_ = 0;  // guarded by mu_
  bool taking_ = false;          // a first lock waits for passes or flushes; guarded by mu_
  std::int64_t passes_ = 0;      // guarded by mu_
};

}  // namespace quarry::commands
