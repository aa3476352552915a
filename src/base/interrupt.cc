#include "base/interrupt.h"

namespace quarry {

void Interrupt::Kill(ErrorCode code) {
  int none = 0;
  code_.compare_exchange_strong(none, static_cast<int>(code));
}

Status Interrupt::Check() const {
  const int code = code_.load(std::memory_order_relaxed);
  if (code == 0) return Status::OK();
  return Status(static_cast<ErrorCode>(code), "operation was interrupted");
}

}  // namespace quarry
