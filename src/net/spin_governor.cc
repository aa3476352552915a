#include "net/spin_governor.h"

#include <algorithm>

namespace quarry::net {

namespace {

SpinGovernor::Micros Halved(SpinGovernor::Micros window) {
  window /= 2;
  return window < SpinGovernor::kSmallestWindow ? SpinGovernor::Micros{0} : window;
}

}  // namespace

void SpinGovernor::OnCaught() {
  misses_ = 0;
  window_ = std::min(limit_, window_ * 2);
  caught_open_ = true;
  reopen_reach_ = limit_ * kReopenLimits;
}

void SpinGovernor::OnSlept(Micros slept) {
  if (window_.count() > 0) {
    if (++misses_ < kMissesBeforeShrinking) return;
    misses_ = 0;
    Shrink();
  } else if (slept <= reopen_reach_) {
    window_ = std::min(limit_, std::max(kSmallestWindow, slept * 2));
    caught_open_ = false;
  }
}

void SpinGovernor::OnPreempted() {
  misses_ = 0;
  Shrink();
}

void SpinGovernor::Shrink() {
  if (window_.count() == 0) return;
  window_ = Halved(window_);
  if (window_.count() == 0 && !caught_open_) {
    reopen_reach_ = std::max(limit_ * kReopenLimitsAtLeast, reopen_reach_ / 2);
  }
}

}  // namespace quarry::net
