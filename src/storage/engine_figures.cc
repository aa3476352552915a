// Engine::Figures: RocksDB's size and activity properties, for monitoring.
#include <rocksdb/db.h>

#include "storage/engine.h"
#include "storage/engine_internal.h"

namespace quarry::storage {
namespace {

std::uint64_t Property(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family,
                       const std::string& name) {
  std::uint64_t value = 0;
  if (family != nullptr ? !db->GetIntProperty(family, name, &value)
                        : !db->GetIntProperty(name, &value)) {
    return 0;
  }
  return value;
}

}  // namespace

EngineFigures Engine::Figures() const {
  rocksdb::DB* db = state_->db;
  EngineFigures figures;
  const std::pair<const char*, rocksdb::ColumnFamilyHandle*> families[] = {
      {"catalog", state_->catalog},
      {"docs", state_->docs},
      {"index", state_->index},
      {"oplog", state_->oplog},
      {"meta", state_->meta}};
  for (const auto& [name, family] : families) {
    FamilyFigures f;
    f.name = name;
    f.live_sst_bytes = Property(db, family, rocksdb::DB::Properties::kLiveSstFilesSize);
    f.memtable_bytes = Property(db, family, rocksdb::DB::Properties::kCurSizeAllMemTables);
    f.estimated_keys = Property(db, family, rocksdb::DB::Properties::kEstimateNumKeys);
    f.live_data_bytes = Property(db, family, rocksdb::DB::Properties::kEstimateLiveDataSize);
    figures.compaction_pending += Property(db, family, rocksdb::DB::Properties::kCompactionPending);
    figures.pending_compaction_bytes +=
        Property(db, family, rocksdb::DB::Properties::kEstimatePendingCompactionBytes);
    figures.families.push_back(std::move(f));
  }
  // One cache serves every family; ask one that has it (the default family has none).
  figures.block_cache_usage_bytes =
      Property(db, state_->docs, rocksdb::DB::Properties::kBlockCacheUsage);
  figures.block_cache_capacity_bytes =
      Property(db, state_->docs, rocksdb::DB::Properties::kBlockCacheCapacity);
  figures.running_flushes = Property(db, nullptr, rocksdb::DB::Properties::kNumRunningFlushes);
  figures.running_compactions =
      Property(db, nullptr, rocksdb::DB::Properties::kNumRunningCompactions);
  return figures;
}

}  // namespace quarry::storage
