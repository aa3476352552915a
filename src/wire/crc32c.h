// CRC-32C (Castagnoli), the checksum of OP_MSG's checksumPresent flag (MongoDB's OP_MSG
// specification).
#pragma once

#include <cstdint>
#include <string_view>

namespace quarry::wire {

// The CRC-32C of `data` (reflected polynomial 0x82F63B78, initial value and final xor
// 0xFFFFFFFF): Crc32c("123456789") == 0xE3069283.
std::uint32_t Crc32c(std::string_view data);

}  // namespace quarry::wire
