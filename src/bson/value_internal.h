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

// Size of the value bytes of an element of `type` starting at `p`, or -1 when the type is
// unknown or a length field is negative. Does not check against the end of the buffer.
std::int64_t ValueSize(Type type, const char* p);

}  // namespace quarry::bson::internal
