// Little-endian reads and element sizes over trusted (validated) BSON bytes.
#pragma once

#include <cstdint>
#include <cstring>

#include "bson/types.h"

namespace quarry::bson::internal {

inline std::int32_t ReadInt32(const char* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::int64_t ReadInt64(const char* p) {
  std::int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint64_t ReadUint64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline double ReadDouble(const char* p) {
  double v;
  std::memcpy(&v, p, 8);
  return v;
}

// Length of the C string at `p` within [p, limit), or -1 if it has no NUL before limit. Field
// names are mostly a few bytes (array indexes above all), where a loop in place is cheaper
// than a call to memchr.
inline std::int64_t CStringLength(const char* p, const char* limit) {
  constexpr std::int64_t kShortString = 16;
  const std::int64_t available = limit - p;
  for (std::int64_t length = 0; length < available && length < kShortString; ++length) {
    if (p[length] == '\0') return length;
  }
  if (available <= kShortString) return -1;
  const void* nul =
      std::memchr(p + kShortString, 0, static_cast<std::size_t>(available - kShortString));
  return nul == nullptr ? -1 : static_cast<const char*>(nul) - p;
}

// Size of the value bytes of an element of `type` starting at `p`, or -1 when the type is
// unknown or a length field is negative. Does not check against the end of the buffer.
std::int64_t ValueSize(Type type, const char* p);

}  // namespace quarry::bson::internal
