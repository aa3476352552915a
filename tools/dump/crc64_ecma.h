// CRC-64 with the ECMA-182 polynomial in its reflected form, complemented before and after each
// update, as Go's hash/crc64 computes it: the checksum a mongodump archive carries for each
// namespace.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quarry::tools::dumping {

// Extends `crc` (0 to start) over `size` bytes.
std::uint64_t Crc64Ecma(std::uint64_t crc, const void* data, std::size_t size);

}  // namespace quarry::tools::dumping
