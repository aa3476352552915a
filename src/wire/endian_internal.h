// Little-endian reads and writes for wire/'s parsers and builders. Written byte by byte so they
// are alignment-safe on any host; compilers turn them into single loads and stores.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace quarry::wire::internal {

inline std::uint32_t LoadU32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

inline std::int32_t LoadI32(const char* p) { return static_cast<std::int32_t>(LoadU32(p)); }

inline void StoreU32(std::uint32_t v, char* p) {
  auto* b = reinterpret_cast<unsigned char*>(p);
  b[0] = static_cast<unsigned char>(v);
  b[1] = static_cast<unsigned char>(v >> 8);
  b[2] = static_cast<unsigned char>(v >> 16);
  b[3] = static_cast<unsigned char>(v >> 24);
}

inline void AppendU32(std::uint32_t v, std::string* out) {
  char buf[4];
  StoreU32(v, buf);
  out->append(buf, 4);
}

inline void AppendI32(std::int32_t v, std::string* out) {
  AppendU32(static_cast<std::uint32_t>(v), out);
}

inline void AppendI64(std::int64_t v, std::string* out) {
  auto u = static_cast<std::uint64_t>(v);
  AppendU32(static_cast<std::uint32_t>(u), out);
  AppendU32(static_cast<std::uint32_t>(u >> 32), out);
}

}  // namespace quarry::wire::internal
