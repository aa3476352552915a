#include "net/spin_governor.h"

#include <algorithm>

namespace quarry::net {

void SpinGovernor::OnSlept(Micros slept) {
  if (slept <= 2 * limit_) {
    window_ = std::min(limit_, std::max(kSmallestWindow, window_ * 2));
  } else {
    window_ /= 2;
    if (window_ < kSmallestWindow) window_ = Micros{0};
  }
}

void SpinGovernor::OnPreempted() {
  window_ /= 2;
  if (window_ < kSmallestWindow) window_ = Micros{0};
}

}  // namespace quarry::net
