// CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final xor
// 0xFFFFFFFF), the checksum of OP_MSG's checksumPresent flag and of RocksDB's WAL records
// (storage/rocksdb_crc32c.h). Crc32c("123456789") == 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace quarry {

std::uint32_t Crc32c(std::string_view data);

// The CRC-32C of the bytes whose CRC-32C is `crc` followed by `data`.
std::uint32_t ExtendCrc32c(std::uint32_t crc, std::string_view data);

// The CRC-32C of A followed by B, from the CRC-32Cs of A and of B and B's length.
std::uint32_t CombineCrc32c(std::uint32_t crc_a, std::uint32_t crc_b, std::size_t b_length);

// Whether the CPU's CRC32 and carry-less multiply instructions (SSE4.2, PCLMULQDQ) compute
// them; byte tables do otherwise.
bool Crc32cUsesInstruction();

}  // namespace quarry
