#include "base/interrupt.h"

namespace quarry {

void Interrupt::Kill(ErrorCode code) {
  int none = 0;
  code_.compare_exchange_strong(none, static_cast<int>(code));
}

void Interrupt::SetDeadline(std::chrono::steady_clock::time_point deadline) {
  // A deadline at tick 0 would read as none; one tick later is the same limit.
  const std::int64_t ticks = deadline.time_since_epoch().count();
  deadline_ticks_.store(ticks == 0 ? 1 : ticks, std::memory_order_relaxed);
}

void Interrupt::ClearDeadline() { deadline_ticks_.store(0, std::memory_order_relaxed); }

Status Interrupt::Check() const {
  const int code = code_.load(std::memory_order_relaxed);
  if (code == static_cast<int>(ErrorCode::kInterruptedAtShutdown)) {
    return Status(ErrorCode::kInterruptedAtShutdown, "interrupted at shutdown");
  }
  if (code != 0) return Status(static_cast<ErrorCode>(code), "operation was interrupted");
  const std::int64_t deadline = deadline_ticks_.load(std::memory_order_relaxed);
  if (deadline != 0 && std::chrono::steady_clock::now().time_since_epoch().count() >= deadline) {
    return Status(ErrorCode::kMaxTimeMSExpired, "operation exceeded time limit");
  }
  return Status::OK();
}

}  // namespace quarry
