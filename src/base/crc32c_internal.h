// The byte-table CRC-32C of machines without SSE4.2 and PCLMULQDQ, reachable by tests on
// machines that have them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace quarry::internal {

std::uint32_t ExtendCrc32cByTable(std::uint32_t crc, std::string_view data);
std::uint32_t CombineCrc32cByTable(std::uint32_t crc_a, std::uint32_t crc_b, std::size_t b_length);

}  // namespace quarry::internal
