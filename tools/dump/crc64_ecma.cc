#include "tools/dump/crc64_ecma.h"

#include <array>

#include "base/reflected_crc_table.h"

namespace quarry::tools::dumping {
namespace {

constexpr std::uint64_t kReflectedEcma = 0xC96C5795D7870F42ull;

constexpr std::array<std::uint64_t, 256> kTable = ReflectedCrcTable(kReflectedEcma);

}  // namespace

std::uint64_t Crc64Ecma(std::uint64_t crc, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = kTable[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

}  // namespace quarry::tools::dumping
