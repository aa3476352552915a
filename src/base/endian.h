// Fixed-width integers in byte strings: little-endian as BSON and the wire protocol store them,
// big-endian where byte order must be numeric order (storage keys, resume tokens). Written byte
// by byte so they are alignment-safe on any host; compilers turn them into single loads and
// stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace quarry {

inline std::uint32_t LoadLittleEndian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

inline std::int32_t LoadLittleEndianInt32(const char* p) {
  return static_cast<std::int32_t>(LoadLittleEndian32(p));
}

inline std::uint64_t LoadLittleEndian64(const char* p) {
  return static_cast<std::uint64_t>(LoadLittleEndian32(p)) |
         static_cast<std::uint64_t>(LoadLittleEndian32(p + 4)) << 32;
}

inline void StoreLittleEndian32(std::uint32_t v, char* p) {
  auto* b = reinterpret_cast<unsigned char*>(p);
  b[0] = static_cast<unsigned char>(v);
  b[1] = static_cast<unsigned char>(v >> 8);
  b[2] = static_cast<unsigned char>(v >> 16);
  b[3] = static_cast<unsigned char>(v >> 24);
}

inline void StoreLittleEndian64(std::uint64_t v, char* p) {
  StoreLittleEndian32(static_cast<std::uint32_t>(v), p);
  StoreLittleEndian32(static_cast<std::uint32_t>(v >> 32), p + 4);
}

inline void AppendLittleEndian32(std::uint32_t v, std::string* out) {
  char buf[4];
  StoreLittleEndian32(v, buf);
  out->append(buf, 4);
}

inline void AppendLittleEndianInt32(std::int32_t v, std::string* out) {
  AppendLittleEndian32(static_cast<std::uint32_t>(v), out);
}

inline void AppendLittleEndian64(std::uint64_t v, std::string* out) {
  char buf[8];
  StoreLittleEndian64(v, buf);
  out->append(buf, 8);
}

// The low `bytes` bytes of `v`, most significant first. REQUIRES: 1 <= bytes <= 8.
inline void AppendBigEndian(std::uint64_t v, int bytes, std::string* out) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xFF));
  }
}

inline void AppendBigEndian64(std::uint64_t v, std::string* out) { AppendBigEndian(v, 8, out); }

// Reads `bytes` bytes at `p`, most significant first. REQUIRES: 1 <= bytes <= 8.
inline std::uint64_t LoadBigEndian(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

inline std::uint64_t LoadBigEndian64(const char* p) { return LoadBigEndian(p, 8); }

}  // namespace quarry
