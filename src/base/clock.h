// The wall clock as MongoDB reports it: milliseconds since the Unix epoch (BSON dates, oplog
// `wall`, `localTime`, $$NOW).
#pragma once

#include <chrono>
#include <cstdint>

namespace quarry {

inline std::int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace quarry
