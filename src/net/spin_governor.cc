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
}

void SpinGovernor::OnSlept(Micros slept) {
  if (window_.count() > 0) {
    if (++misses_ < kMissesBeforeShrinking) return;
    misses_ = 0;
    window_ = Halved(window_);
  } else if (slept <= limit_) {
    window_ = std::min(limit_, std::max(kSmallestWindow, slept * 2));
  }
}

void SpinGovernor::OnPreempted() {
  misses_ = 0;
  window_ = Halved(window_);
}

}  // namespace quarry::net
