// A memtable representation of storage's own: a skip list with one writer at a time, for
// families whose commits come from one thread (docs/formats/storage-layout.md, "Memtables").
#pragma once

#include <rocksdb/memtablerep.h>

#include <memory>

namespace quarry::storage::internal {

// A factory for RocksDB's `ColumnFamilyOptions::memtable_factory`. Its memtables take one
// insert at a time (the database must set `allow_concurrent_memtable_write` to false), keep an
// insert hint per prefix of `memtable_insert_with_hint_prefix_extractor` and otherwise the
// position of the last insert, and let any number of readers run beside the writer.
std::shared_ptr<rocksdb::MemTableRepFactory> NewSkipListMemtableFactory();

}  // namespace quarry::storage::internal
