// RocksDB's CRC32C functions, defined by storage instead of by RocksDB's own `util/crc32c.cc`.
//
// Debian builds librocksdb portably, without SSE4.2, and its crc32c then never uses the CPU's
// CRC32 instruction: the WAL's checksums, computed by table lookups, were about a seventh of a
// bulk insert's write thread. RocksDB declares these three functions in a header it does not
// install and calls them across object files, so the linker takes storage's definitions and
// leaves RocksDB's object out (docs/formats/storage-layout.md, "Compression and tuning"). Their
// results are the standard CRC32C (Castagnoli) that RocksDB's own code computes, so files written
// by either read with the other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rocksdb::crc32c {

// The CRC32C of the bytes whose CRC32C is `crc` followed by `data[0, n)`.
std::uint32_t Extend(std::uint32_t crc, const char* data, std::size_t n);

// The CRC32C of A followed by B, from the CRC32Cs of A and of B and B's length.
std::uint32_t Crc32cCombine(std::uint32_t crc_a, std::uint32_t crc_b, std::size_t b_length);

// Names the implementation in use (RocksDB logs it).
std::string IsFastCrc32Supported();

}  // namespace rocksdb::crc32c
