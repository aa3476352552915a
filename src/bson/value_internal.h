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

// Length of the field name at `key`. Field names are mostly a few bytes (array indexes above
// all), where a loop in place is cheaper than a call to strlen.
inline std::size_t KeyLength(const char* key) {
  constexpr std::size_t kShortKey = 16;
  for (std::size_t length = 0; length < kShortKey; ++length) {
    if (key[length] == '\0') return length;
  }
  return kShortKey + std::strlen(key + kShortKey);
}

// Size of the value bytes of an element of `type` starting at `p`, or -1 when the type is
// unknown or a length field is negative. Does not check against the end of the buffer.
std::int64_t ValueSize(Type type, const char* p);

}  // namespace quarry::bson::internal
