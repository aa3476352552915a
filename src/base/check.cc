// Failure path of QUARRY_CHECK: report where and stop before stored data can be harmed.
#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace quarry::internal {

void CheckFailed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "quarry: check failed: %s at %s:%d\n", expr, file, line);
  std::abort();
}

}  // namespace quarry::internal
