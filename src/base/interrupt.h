// Asking a running operation to stop. killSessions sets it; scans check it every few hundred
// records, so a long scan ends soon after, with the error it was given. A cursor keeps the
// Interrupt of the operation that opened it, so killing it also stops the cursor's getMores.
// A deadline (maxTimeMS) makes Check() fail with MaxTimeMSExpired once it has passed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/status.h"

namespace quarry {

class Interrupt {
 public:
  // From now on Check() fails with `code`. The first kill wins. Thread-safe.
  void Kill(ErrorCode code = ErrorCode::kInterrupted);
  // Check() fails with MaxTimeMSExpired (50) from `deadline` on, until ClearDeadline().
  void SetDeadline(std::chrono::steady_clock::time_point deadline);
  void ClearDeadline();
  // OK until the operation is killed or its deadline passes. Thread-safe and cheap.
  Status Check() const;

 private:
  std::atomic<int> code_{0};
  std::atomic<std::int64_t> deadline_ticks_{0};  // steady_clock ticks; 0: none
};

}  // namespace quarry
