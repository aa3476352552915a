// Asking a running operation to stop. killSessions sets it; scans check it every few hundred
// records, so a long scan ends soon after, with the error it was given. A cursor keeps the
// Interrupt of the operation that opened it, so killing it also stops the cursor's getMores.
#pragma once

#include <atomic>

#include "base/status.h"

namespace quarry {

class Interrupt {
 public:
  // From now on Check() fails with `code`. The first kill wins. Thread-safe.
  void Kill(ErrorCode code = ErrorCode::kInterrupted);
  // OK until the operation is killed. Thread-safe and cheap.
  Status Check() const;

 private:
  std::atomic<int> code_{0};
};

}  // namespace quarry
