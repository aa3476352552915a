// The byte table of a reflected CRC (CRC-32C, CRC-64/ECMA, ...): entry b is the register after
// shifting byte b through it, for byte-at-a-time updates `crc = table[(crc ^ byte) & 0xFF] ^
// (crc >> 8)`.
#pragma once

#include <array>

namespace quarry {

// `polynomial`: the generator in reflected bit order, without its top term.
template <typename Crc>
constexpr std::array<Crc, 256> ReflectedCrcTable(Crc polynomial) {
  std::array<Crc, 256> table{};
  for (Crc byte = 0; byte < 256; ++byte) {
    Crc crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1;
    table[byte] = crc;
  }
  return table;
}

}  // namespace quarry
