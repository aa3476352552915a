#include <cstdlib>

#include "net/frame_buffer_internal.h"

namespace quarry::net::internal {

bool IncomingMessageMemory::TryTake(std::size_t bytes) {
  std::size_t held = held_.load(std::memory_order_relaxed);
  do {
    if (held + bytes > limit_) return false;
  } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  return true;
}

bool FrameBuffer::Grow(std::size_t size) {
  if (size <= capacity_) return true;
  const std::size_t extra = Charge(size) - Charge(capacity_);
  if (extra > 0 && !budget_->TryTake(extra)) return false;
  void* grown = std::realloc(data_, size);
  if (grown == nullptr) {
    if (extra > 0) budget_->Give(extra);
    return false;
  }
  data_ = static_cast<char*>(grown);
  capacity_ = size;
  return true;
}

void FrameBuffer::Free() {
  std::free(data_);
  if (Charge(capacity_) > 0) budget_->Give(Charge(capacity_));
  data_ = nullptr;
  capacity_ = 0;
}

}  // namespace quarry::net::internal
