// RocksDB's CRC32C entry points over base's implementation (rocksdb_crc32c.h says why).
#include "storage/rocksdb_crc32c.h"

#include <string_view>

#include "base/crc32c.h"

namespace rocksdb::crc32c {

std::uint32_t Extend(std::uint32_t crc, const char* data, std::size_t n) {
  return quarry::ExtendCrc32c(crc, std::string_view(data, n));
}

std::uint32_t Crc32cCombine(std::uint32_t crc_a, std::uint32_t crc_b, std::size_t b_length) {
  return quarry::CombineCrc32c(crc_a, crc_b, b_length);
}

std::string IsFastCrc32Supported() {
  return quarry::Crc32cUsesInstruction() ? "Quarry's CRC32C with the SSE4.2 CRC32 instruction"
                                         : "Quarry's CRC32C by table lookup";
}

}  // namespace rocksdb::crc32c
