// Invariant checks. QUARRY_CHECK is always on and guards invariants that protect stored data;
// QUARRY_DCHECK is for programmer errors in debug builds. Client input must never reach either.
#pragma once

namespace quarry::internal {
[[noreturn]] void CheckFailed(const char* expr, const char* file, int line);
}  // namespace quarry::internal

#define QUARRY_CHECK(cond) \
  ((cond) ? static_cast<void>(0) : ::quarry::internal::CheckFailed(#cond, __FILE__, __LINE__))

#ifdef NDEBUG
#define QUARRY_DCHECK(cond) static_cast<void>(0)
#else
#define QUARRY_DCHECK(cond) QUARRY_CHECK(cond)
#endif
