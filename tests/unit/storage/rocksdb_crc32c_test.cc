// RocksDB's checksums in Quarry's binaries come from base/crc32c.h: the linker takes
// storage's definitions of RocksDB's three CRC32C functions, not RocksDB's own object.
#include "storage/rocksdb_crc32c.h"

#include <gtest/gtest.h>

#include <string>

#include "base/crc32c.h"

namespace quarry::storage {
namespace {

TEST(RocksdbCrc32cTest, RocksdbLinksToStoragesDefinitions) {
  // RocksDB's own object names itself differently ("Supported on x86", "Not supported ...").
  EXPECT_TRUE(rocksdb::crc32c::IsFastCrc32Supported().starts_with("Quarry's CRC32C"))
      << rocksdb::crc32c::IsFastCrc32Supported();
}

TEST(RocksdbCrc32cTest, ExtendsAndCombinesAsRocksdbExpects) {
  const std::string a = "a WAL record's type byte";
  const std::string b = "and its payload, checksummed apart and combined";
  const std::uint32_t crc_a = rocksdb::crc32c::Extend(0, a.data(), a.size());
  const std::uint32_t crc_b = rocksdb::crc32c::Extend(0, b.data(), b.size());
  EXPECT_EQ(crc_a, Crc32c(a));
  EXPECT_EQ(rocksdb::crc32c::Extend(crc_a, b.data(), b.size()), Crc32c(a + b));
  EXPECT_EQ(rocksdb::crc32c::Crc32cCombine(crc_a, crc_b, b.size()), Crc32c(a + b));
}

}  // namespace
}  // namespace quarry::storage
