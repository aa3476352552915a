// Opening and closing the RocksDB database, its tuning, and the background WAL syncer.
#include "storage/engine.h"

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "base/log.h"
#include "storage/engine_internal.h"
#include "storage/meta_store.h"
#include "storage/record_recovery.h"
#include "storage/rocksdb_crc32c.h"
#include "storage/skip_list_memtable_internal.h"

namespace quarry::storage {
namespace {

constexpr const char* kCatalogFamily = "catalog";
constexpr const char* kDocsFamily = "docs";
constexpr const char* kIndexFamily = "index";
constexpr const char* kOplogFamily = "oplog";
constexpr const char* kMetaFamily = "meta";

rocksdb::InfoLogLevel ParseLogLevel(const std::string& level) {
  // Set explicitly: Debian's librocksdb is built without NDEBUG, and Options() would then
  // default to DEBUG_LEVEL and a chatty LOG.
  static_assert(kRocksdbLogLevels.size() == 4, "each level below has its RocksDB level");
  if (level == kRocksdbLogLevels[0]) return rocksdb::InfoLogLevel::DEBUG_LEVEL;
  if (level == kRocksdbLogLevels[1]) return rocksdb::InfoLogLevel::INFO_LEVEL;
  if (level == kRocksdbLogLevels[3]) return rocksdb::InfoLogLevel::ERROR_LEVEL;
  return rocksdb::InfoLogLevel::WARN_LEVEL;
}

// `point_reads`: the family is read by key (Get), which whole-key bloom filters, a hash index
// in each data block and `restart_interval` (entries between the block's full keys, which a
// point read scans one by one from the hashed one) make cheap.
std::shared_ptr<rocksdb::TableFactory> MakeTable(const std::shared_ptr<rocksdb::Cache>& cache,
                                                 bool point_reads, int restart_interval = 16) {
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.block_size = 16 * 1024;
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  // Every table file's index and filter blocks stay in the cache (~1.5% of the data's size): a
  // point read then looks up one block in the cache, its data block, instead of three, and
  // takes one cache shard's mutex instead of three.
  table.metadata_cache_options.unpartitioned_pinning = rocksdb::PinningTier::kAll;
  table.format_version = 5;
  // Debian's portable librocksdb computes CRC32C in software (~850 MB/s here); XXH3 block
  // checksums cost flushes and compactions far less. (The WAL always uses CRC32C.)
  table.checksum = rocksdb::kXXH3;
  if (point_reads) {
    // Whole-key filters make the insert path's _id existence checks cheap misses.
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    table.whole_key_filtering = true;
    table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
    table.block_restart_interval = restart_interval;
  }
  return std::shared_ptr<rocksdb::TableFactory>(rocksdb::NewBlockBasedTableFactory(table));
}

// Each family compresses every level alike: RocksDB moves a flushed file down to the last
// level without rewriting it only when the two levels' compression match, and records and the
// oplog are mostly written in key order, so their files then move instead of being compressed
// a second time (with LZ4 above zstd, that recompression was most of a bulk load's CPU).
rocksdb::ColumnFamilyOptions LeveledFamilyOptions(const EngineOptions& options,
                                                  rocksdb::CompressionType compression) {
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = options.write_buffer_bytes;
  cf.max_write_buffer_number = 4;
  cf.level_compaction_dynamic_level_bytes = true;
  cf.compression = compression;
  cf.memtable_factory = internal::NewSkipListMemtableFactory();
  return cf;
}

// Families read by key: whole-key bloom filters in memtables and files make a missing key (an
// insert's _id check, a unique key's check) a cheap miss.
rocksdb::ColumnFamilyOptions KeyedFamilyOptions(const EngineOptions& options,
                                                const std::shared_ptr<rocksdb::Cache>& cache,
                                                rocksdb::CompressionType compression,
                                                int restart_interval) {
  rocksdb::ColumnFamilyOptions cf = LeveledFamilyOptions(options, compression);
  cf.memtable_prefix_bloom_size_ratio = 0.05;
  cf.memtable_whole_key_filtering = true;
  cf.table_factory = MakeTable(cache, true, restart_interval);
  return cf;
}

rocksdb::ColumnFamilyOptions DocsFamilyOptions(const EngineOptions& options,
                                               const std::shared_ptr<rocksdb::Cache>& cache) {
  // zstd's fastest level: smaller files than LZ4's for a few percent of a bulk load's
  // throughput.
  // Records are large: a point read lands on its own record, with no scan over others' bytes
  // (keys of 21 bytes lose their shared prefixes, which compression takes back).
  rocksdb::ColumnFamilyOptions cf = KeyedFamilyOptions(options, cache, rocksdb::kZSTD, 1);
  cf.compression_opts.level = 1;
  return cf;
}

// Where an index key's skip-list insert starts looking: where that index's last key went. A
// commit puts each index's keys in key order, so with a hint per index each insert searches
// only the levels between its key and the one before (a hintless insert whose key is not next
// to the last one searches from the top, a cache miss on each level of a memtable of random
// keys).
class IndexInsertHint final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "quarry.IndexInsertHint"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return {key.data(), kIndexIdBytes};
  }
  bool InDomain(const rocksdb::Slice& key) const override { return key.size() >= kIndexIdBytes; }

 private:
  static constexpr std::size_t kIndexIdBytes = sizeof(IndexId);
};

rocksdb::ColumnFamilyOptions IndexFamilyOptions(const EngineOptions& options,
                                                const std::shared_ptr<rocksdb::Cache>& cache) {
  // Index keys arrive in random order, so their files overlap and compactions rewrite them:
  // the cheapest codec.
  rocksdb::ColumnFamilyOptions cf = KeyedFamilyOptions(options, cache, rocksdb::kLZ4Compression, 4);
  // Each random key's skip-list insert walks the whole memtable: one small enough to stay in
  // the CPU's cache made inserts with three indexes ~20% faster than at 64 MB.
  cf.write_buffer_size = std::min<std::size_t>(cf.write_buffer_size, std::size_t{16} << 20);
  cf.memtable_insert_with_hint_prefix_extractor = std::make_shared<IndexInsertHint>();
  return cf;
}

rocksdb::ColumnFamilyOptions OplogFamilyOptions(const EngineOptions& options,
                                                const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions cf = LeveledFamilyOptions(options, rocksdb::kLZ4Compression);
  cf.table_factory = MakeTable(cache, false);  // read by range only
  return cf;
}

rocksdb::ColumnFamilyOptions SmallFamilyOptions(const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = 4 << 20;
  cf.compression = rocksdb::kLZ4Compression;
  cf.table_factory = MakeTable(cache, false);
  cf.memtable_factory = internal::NewSkipListMemtableFactory();
  return cf;
}

// Where a meta name's next skip-list insert starts looking: where the name went last, or for a
// session's retryable-write records (kSessionNamePrefix + lsid + sequence,
// docs/formats/storage-layout.md) where that session's last record went, so that a write's
// second record starts beside its first.
class MetaInsertHint final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "quarry.MetaInsertHint"; }
  rocksdb::Slice Transform(const rocksdb::Slice& name) const override {
    if (name.starts_with(kSessionNamePrefix) && name.size() >= kSessionBytes) {
      return {name.data(), kSessionBytes};
    }
    return name;
  }
  bool InDomain(const rocksdb::Slice&) const override { return true; }

 private:
  static constexpr std::size_t kSessionBytes = kSessionNamePrefix.size() + kSessionIdBytes;
};

// Every commit rewrites a few meta names (a collection's counters, a session's retryable-write
// record) between which the memtable's skip
// list would otherwise search from its top for each one: it remembers only where the last
// insert went, and these alternate. A hint per name (per session for its records) keeps where
// each went last.
rocksdb::ColumnFamilyOptions MetaFamilyOptions(const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions cf = SmallFamilyOptions(cache);
  cf.memtable_insert_with_hint_prefix_extractor = std::make_shared<MetaInsertHint>();
  return cf;
}

Status OpenError(const rocksdb::Status& status, const std::string& dbpath) {
  std::string message = status.ToString();
  // RocksDB's LOCK file: "While lock file: <path>/LOCK: Resource temporarily unavailable" from
  // another process, "lock hold by current process" from this one.
  if (status.IsIOError() &&
      (message.find("lock") != std::string::npos || message.find("LOCK") != std::string::npos)) {
    return Status(ErrorCode::kDBPathInUse, "another quarryd is using " + dbpath + ": " + message);
  }
  return Status(ErrorCode::kInternalError,
                "cannot open the database at " + dbpath + ": " + message);
}

// Writes the current format version (with `also`, in the same synced batch).
Status WriteFormatVersion(internal::EngineState* state, rocksdb::WriteBatch* also,
                          std::string_view context) {
  std::string version;
  AppendBigEndian64(internal::kFormatVersion, &version);
  rocksdb::WriteBatch batch;
  if (also == nullptr) also = &batch;
  also->Put(state->meta, std::string(internal::kFormatVersionName), version);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  return internal::FromRocks(state->db->Write(sync, also), context);
}

Status ReadFormatVersion(internal::EngineState* state) {
  std::string value;
  rocksdb::Status s = state->db->Get(rocksdb::ReadOptions(), state->meta,
                                     std::string(internal::kFormatVersionName), &value);
  if (s.IsNotFound()) return WriteFormatVersion(state, nullptr, "writing the format version");
  if (!s.ok()) return internal::FromRocks(s, "reading the format version");
  std::uint64_t found = value.size() == 8 ? LoadBigEndian64(value.data()) : 0;
  if (found == 1) {
    // Version 1 wrote records through the WAL, so they are all there: mark them applied
    // through the newest entry (its oplog keys carry no redo part anyway).
    std::string through;
    AppendBigEndian64(state->latest_timestamp.load(), &through);
    rocksdb::WriteBatch batch;
    batch.Put(state->meta, internal::kRecordsAppliedThroughName, through);
    return WriteFormatVersion(state, &batch, "upgrading the format version");
  }
  if (found == 2 || found == 3) {
    // Version 2 kept the records' applied-through point in the docs family; recovery, which
    // runs next, reads it there and moves it to meta. Version 3 stored every record as BSON,
    // which version 4 still reads; the new number keeps older servers, which would take a
    // compressed record for BSON, from opening the database.
    return WriteFormatVersion(state, nullptr, "upgrading the format version");
  }
  if (found != internal::kFormatVersion) {
    return Status(ErrorCode::kIllegalOperation, "unsupported data format version " +
                                                    std::to_string(found) + " in " + state->dbpath +
                                                    " (this quarryd reads version " +
                                                    std::to_string(internal::kFormatVersion) + ")");
  }
  return Status::OK();
}

Status LoadStats(internal::EngineState* state) {
  std::unique_ptr<rocksdb::Iterator> it(
      state->db->NewIterator(rocksdb::ReadOptions(), state->meta));
  for (it->Seek(std::string(internal::kStatsPrefix)); it->Valid(); it->Next()) {
    std::string_view key = it->key().ToStringView();
    if (!key.starts_with(internal::kStatsPrefix)) break;
    if (key.size() != internal::kStatsPrefix.size() + 8) continue;
    CollectionStats stats;
    if (!internal::DecodeStats(it->value().ToStringView(), &stats)) continue;
    state->stats.Set(LoadBigEndian64(key.data() + internal::kStatsPrefix.size()), stats);
  }
  return internal::FromRocks(it->status(), "loading collection counters");
}

Status LoadLatestTimestamp(internal::EngineState* state) {
  std::unique_ptr<rocksdb::Iterator> it(
      state->db->NewIterator(rocksdb::ReadOptions(), state->oplog));
  it->SeekToLast();
  if (it->Valid() && it->key().size() >= 8) {
    state->latest_timestamp.store(LoadBigEndian64(it->key().data()));
  }
  QUARRY_RETURN_IF_ERROR(internal::FromRocks(it->status(), "reading the newest oplog entry"));
  std::string boundary;
  rocksdb::Status read = state->db->Get(rocksdb::ReadOptions(), state->meta,
                                        internal::kOplogTrimmedBeforeName, &boundary);
  if (read.ok() && boundary.size() == 8) {
    state->oplog_trimmed_before.store(LoadBigEndian64(boundary.data()));
  } else if (!read.IsNotFound() && !read.ok()) {
    return internal::FromRocks(read, "reading the oplog's trim boundary");
  }
  return Status::OK();
}

void CloseDb(internal::EngineState* state) {
  for (rocksdb::ColumnFamilyHandle* handle : {state->catalog, state->docs, state->index,
                                              state->oplog, state->meta, state->default_family}) {
    if (handle != nullptr) state->db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  state->catalog = state->docs = state->index = state->oplog = state->meta = nullptr;
  state->default_family = nullptr;
  state->db->Close().PermitUncheckedError();
  delete state->db;
  state->db = nullptr;
}

}  // namespace

StatusWith<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  if (options.dbpath.empty()) return Status(ErrorCode::kBadValue, "dbpath is empty");
  if (options.create_if_missing) {
    std::error_code ec;
    std::filesystem::create_directories(options.dbpath, ec);
    if (ec) {
      return Status(ErrorCode::kInternalError,
                    "cannot create " + options.dbpath + ": " + ec.message());
    }
  }

  auto cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.info_log_level = ParseLogLevel(options.rocksdb_log_level);
  db_options.max_log_file_size = 16 << 20;
  db_options.keep_log_file_num = 4;
  db_options.max_background_jobs = 2;
  db_options.max_open_files = options.max_open_files;
  db_options.bytes_per_sync = 1 << 20;
  // Every Write hands its WAL record to the OS before returning, so a killed process loses
  // nothing that was acknowledged; only the syncs (journal or background) wait for the disk.
  db_options.manual_wal_flush = false;
  // Storage's own memtables (skip_list_memtable_internal.h) take one insert at a time; the
  // commit pipeline writes almost every batch anyway.
  db_options.allow_concurrent_memtable_write = false;
  auto records_flushes = std::make_shared<internal::RecordsFlushTracker>(kDocsFamily);
  db_options.listeners.push_back(records_flushes);

  auto dropped_records = std::make_shared<internal::DroppedKeys>();
  auto dropped_index_keys = std::make_shared<internal::DroppedKeys>();
  rocksdb::ColumnFamilyOptions docs_options = DocsFamilyOptions(options, cache);
  docs_options.compaction_filter_factory = internal::NewDroppedKeyFilterFactory(dropped_records);
  rocksdb::ColumnFamilyOptions index_options = IndexFamilyOptions(options, cache);
  index_options.compaction_filter_factory =
      internal::NewDroppedKeyFilterFactory(dropped_index_keys);
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {kCatalogFamily, SmallFamilyOptions(cache)},
      {kDocsFamily, docs_options},
      {kIndexFamily, index_options},
      {kOplogFamily, OplogFamilyOptions(options, cache)},
      {kMetaFamily, MetaFamilyOptions(cache)},
  };
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, options.dbpath, families, &handles, &db);
  if (!s.ok()) return OpenError(s, options.dbpath);

  auto state = std::make_unique<internal::EngineState>();
  state->dbpath = options.dbpath;
  state->snapshot_history_window = options.snapshot_history_window;
  state->db = db;
  state->records_flushes = std::move(records_flushes);
  state->dropped_records = std::move(dropped_records);
  state->dropped_index_keys = std::move(dropped_index_keys);
  state->default_family = handles[0];
  state->catalog = handles[1];
  state->docs = handles[2];
  state->index = handles[3];
  state->oplog = handles[4];
  state->meta = handles[5];

  Status loaded = LoadLatestTimestamp(state.get());
  if (loaded.ok()) loaded = ReadFormatVersion(state.get());
  if (loaded.ok()) loaded = internal::RecoverRecords(state.get());
  if (loaded.ok()) loaded = LoadStats(state.get());
  StatusWith<std::vector<internal::DroppedRange>> drops = std::vector<internal::DroppedRange>();
  if (loaded.ok()) {
    drops = internal::UnreclaimedDrops(state.get());
    loaded = drops.status();
  }
  if (!loaded.ok()) {
    CloseDb(state.get());
    return loaded;
  }

  std::unique_ptr<Engine> engine(new Engine(std::move(state)));
  for (internal::DroppedRange& range : drops.value()) engine->reclaimer_->Enqueue(std::move(range));
  if (options.wal_sync_interval.count() > 0) engine->StartSyncer(options.wal_sync_interval);
  log::Write(log::Severity::kInfo, "STORAGE", 22315, "initandlisten", "Opened the storage engine",
             {{"dbpath", options.dbpath},
              {"latestOplogTimestamp", engine->state_->latest_timestamp.load()},
              {"checksums", rocksdb::crc32c::IsFastCrc32Supported()}});
  return engine;
}

Engine::Engine(std::unique_ptr<internal::EngineState> state)
    : state_(std::move(state)),
      records_(std::make_unique<RecordStore>(state_.get())),
      indexes_(std::make_unique<IndexStore>(state_.get())),
      oplog_(std::make_unique<Oplog>(state_.get())),
      pipeline_(std::make_unique<CommitPipeline>(state_.get())),
      meta_(std::make_unique<MetaStore>(state_.get())),
      catalog_store_(std::make_unique<CatalogStore>(state_.get())),
      reclaimer_(std::make_unique<internal::DroppedRangeReclaimer>(
          state_->db, state_->meta, state_->snapshot_history_window,
          [pipeline = pipeline_.get()] { pipeline->ReleaseExpiredSnapshots(); },
          [state = state_.get()] { return internal::PersistRecords(state); })) {
  state_->reclaimer = reclaimer_.get();
}

Engine::~Engine() {
  Status closed = Close();
  if (!closed.ok()) {
    log::Write(log::Severity::kWarning, "STORAGE", 22316, "", "Closing the storage engine failed",
               {{"error", closed.ToString()}});
  }
}

const std::string& Engine::dbpath() const { return state_->dbpath; }

std::string Engine::temp_dir() const { return internal::TempDirOf(state_->dbpath); }

void Engine::StartSyncer(std::chrono::milliseconds interval) {
  // Read before the thread starts, so that a write committed before it first runs still
  // counts as unsynced.
  std::uint64_t synced = state_->db->GetLatestSequenceNumber();
  syncer_ = std::thread([this, interval, synced] { RunSyncer(interval, synced); });
}

void Engine::RunSyncer(std::chrono::milliseconds interval, std::uint64_t synced) {
  std::unique_lock lock(syncer_mu_);
  while (!syncer_stop_) {
    syncer_cv_.wait_for(lock, interval, [this] { return syncer_stop_; });
    if (syncer_stop_) break;
    lock.unlock();
    rocksdb::SequenceNumber latest = state_->db->GetLatestSequenceNumber();
    if (latest != synced) {
      rocksdb::Status s = state_->db->SyncWAL();
      state_->background_syncs.fetch_add(1);
      if (s.ok()) {
        synced = latest;
      } else {
        log::Write(log::Severity::kWarning, "STORAGE", 22317, "WALSyncer",
                   "Syncing the write-ahead log failed", {{"error", s.ToString()}});
      }
    }
    lock.lock();
  }
}

Status Engine::SyncWal() {
  if (closed_) return Status(ErrorCode::kShutdownInProgress, "the storage engine is closed");
  return internal::FromRocks(state_->db->SyncWAL(), "syncing the write-ahead log");
}

Status Engine::Flush() {
  if (closed_) return Status(ErrorCode::kShutdownInProgress, "the storage engine is closed");
  rocksdb::FlushOptions options;
  options.wait = true;
  std::vector<rocksdb::ColumnFamilyHandle*> families = {state_->catalog, state_->docs,
                                                        state_->index, state_->oplog, state_->meta};
  return internal::FromRocks(state_->db->Flush(options, families), "flushing memtables");
}

EngineStats Engine::stats() const {
  EngineStats stats;
  stats.journal_syncs = state_->journal_syncs.load();
  stats.background_syncs = state_->background_syncs.load();
  return stats;
}

Status Engine::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  pipeline_->Shutdown();
  state_->reclaimer = nullptr;
  reclaimer_->Stop();
  {
    std::lock_guard lock(syncer_mu_);
    syncer_stop_ = true;
  }
  syncer_cv_.notify_all();
  if (syncer_.joinable()) syncer_.join();
  // Not needed for safety (the next open would replay the oplog), but it makes that open fast;
  // the sync after it covers the applied-through point it writes.
  Status persisted = internal::PersistRecords(state_.get());
  Status synced = internal::FromRocks(state_->db->SyncWAL(), "syncing the write-ahead log");
  if (synced.ok()) synced = persisted;
  CloseDb(state_.get());
  return synced;
}

}  // namespace quarry::storage
