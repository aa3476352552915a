// The storage engine: one RocksDB database under dbpath with the column families catalog, docs,
// index, oplog and meta, the background WAL syncer, and the stores that read them.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/status.h"
#include "storage/catalog_store.h"
#include "storage/commit_pipeline.h"
#include "storage/index_store.h"
#include "storage/meta_store.h"
#include "storage/oplog.h"
#include "storage/record_store.h"

namespace quarry::storage {

namespace internal {
struct EngineState;
class DroppedRangeReclaimer;
}  // namespace internal

// The levels EngineOptions::rocksdb_log_level takes, from the most to the least said.
inline constexpr std::array<std::string_view, 4> kRocksdbLogLevels = {"debug", "info", "warn",
                                                                      "error"};

struct EngineOptions {
  std::string dbpath;
  bool create_if_missing = true;
  std::size_t block_cache_bytes = std::size_t{256} << 20;
  std::size_t write_buffer_bytes = std::size_t{64} << 20;  // per column family memtable
  // How often the background syncer makes the WAL durable, so that w:1 writes reach the disk
  // within this interval. Zero disables it (tests only).
  std::chrono::milliseconds wal_sync_interval{100};
  // Table files RocksDB keeps open at once (-1: all of them). A bound keeps storage within its
  // share of the process's descriptors, so client connections cannot starve it.
  int max_open_files = -1;
  // RocksDB's own LOG file under dbpath: one of kRocksdbLogLevels.
  std::string rocksdb_log_level = "warn";
  // How far back reads at a past cluster time reach (mongod's minSnapshotHistoryWindowInSeconds);
  // what is deleted or overwritten stays on disk at least this long.
  std::chrono::seconds snapshot_history_window{300};
};

struct EngineStats {
  std::uint64_t journal_syncs = 0;     // WAL syncs made for kJournal commits
  std::uint64_t background_syncs = 0;  // WAL syncs made by the background syncer
};

// RocksDB's own figures for monitoring (/metrics), each as RocksDB estimates it.
struct FamilyFigures {
  std::string name;                   // "docs", "index", "oplog", ...
  std::uint64_t live_sst_bytes = 0;   // SST files the current version uses
  std::uint64_t memtable_bytes = 0;   // active and unflushed memtables
  std::uint64_t estimated_keys = 0;   // an estimate; deletes and overwrites skew it
  std::uint64_t live_data_bytes = 0;  // an estimate of the data the SST files still hold
};
struct EngineFigures {
  std::vector<FamilyFigures> families;
  std::uint64_t block_cache_usage_bytes = 0;
  std::uint64_t block_cache_capacity_bytes = 0;
  std::uint64_t pending_compaction_bytes = 0;  // summed over the families
  std::uint64_t running_flushes = 0;
  std::uint64_t running_compactions = 0;
  std::uint64_t compaction_pending = 0;  // families waiting for a compaction
};

class Engine {
 public:
  // Opens or creates the database. Fails with kDBPathInUse ("another quarryd is using <dbpath>:
  // ...") when another process (or another Engine in this one) has it open, and with
  // kIllegalOperation for an unknown format version.
  static StatusWith<std::unique_ptr<Engine>> Open(const EngineOptions& options);

  // Closes if still open.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Refuses new commits (kShutdownInProgress), waits for those in progress, syncs the WAL and
  // closes the database. Idempotent.
  // REQUIRES: no other thread reads through the engine any more, and every RecordCursor and
  // OplogCursor has been destroyed.
  Status Close();

  const std::string& dbpath() const;
  // <dbpath>/_tmp: temporary files (spilled sorts, index build files), emptied at start-up by
  // the server before anything uses it.
  std::string temp_dir() const;
  RecordStore& records() { return *records_; }
  const IndexStore& indexes() const { return *indexes_; }
  Oplog& oplog() { return *oplog_; }
  CommitPipeline& pipeline() { return *pipeline_; }
  const MetaStore& meta() const { return *meta_; }
  const CatalogStore& catalog_store() const { return *catalog_store_; }
  EngineStats stats() const;
  // Reads RocksDB's properties; cheap (no I/O). REQUIRES: not closed.
  EngineFigures Figures() const;

  // Makes every committed write durable now.
  Status SyncWal();
  // Writes every memtable to SST files and waits for it (tests, maintenance).
  Status Flush();
  // Rewrites the table files of `collection`'s records and of its `indexes`' keys without what
  // deletes and overwrites left there (compact), while commits go on; returns the bytes the
  // files shrank by. What a snapshot of the history may still read stays
  // (EngineOptions::snapshot_history_window).
  StatusWith<std::uint64_t> CompactCollection(CollectionId collection,
                                              const std::vector<IndexId>& indexes);

  // Writes a consistent copy of the database, as of one moment while commits go on, into `dir`,
  // which must not exist (its parent must). SST files are hard-linked when `dir` is on the
  // dbpath's file system, else copied. Opening the copy is a start after a crash at that moment:
  // it redoes the records from the oplog (docs/formats/storage-layout.md, "Writes and
  // durability"). Commits that would move the records' applied-through point leave it where it
  // is meanwhile; nothing waits for the copy but the oplog's trim and Close.
  Status CreateCheckpoint(const std::string& dir);

 private:
  explicit Engine(std::unique_ptr<internal::EngineState> state);
  void StartSyncer(std::chrono::milliseconds interval);
  // `synced`: the RocksDB sequence number known to be durable.
  void RunSyncer(std::chrono::milliseconds interval, std::uint64_t synced);

  std::unique_ptr<internal::EngineState> state_;
  std::unique_ptr<RecordStore> records_;
  std::unique_ptr<IndexStore> indexes_;
  std::unique_ptr<Oplog> oplog_;
  std::unique_ptr<CommitPipeline> pipeline_;
  std::unique_ptr<MetaStore> meta_;
  std::unique_ptr<CatalogStore> catalog_store_;
  std::unique_ptr<internal::DroppedRangeReclaimer> reclaimer_;

  std::mutex syncer_mu_;
  std::condition_variable syncer_cv_;
  bool syncer_stop_ = false;
  std::thread syncer_;
  bool closed_ = false;
};

}  // namespace quarry::storage
