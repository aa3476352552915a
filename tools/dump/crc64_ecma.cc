#include "tools/dump/crc64_ecma.h"

#include <array>

namespace quarry::tools::dumping {
namespace {

constexpr std::uint64_t kReflectedEcma = 0xC96C5795D7870F42ull;

constexpr std::array<std::uint64_t, 256> MakeTable() {
  std::array<std::uint64_t, 256> table{};
  for (std::uint64_t byte = 0; byte < 256; ++byte) {
    std::uint64_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) != 0 ? (crc >> 1) ^ kReflectedEcma : crc >> 1;
    table[byte] = crc;
  }
  return table;
}

constexpr std::array<std::uint64_t, 256> kTable = MakeTable();

}  // namespace

std::uint64_t Crc64Ecma(std::uint64_t crc, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = kTable[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

}  // namespace quarry::tools::dumping
