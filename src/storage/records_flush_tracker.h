// How far the docs family is on disk. Records skip the WAL, so after a crash the family holds
// what its last completed flush held; recovery must redo every oplog entry after that point.
// The commit pipeline notes each records write with its sequence number, and this listener
// turns the docs family's completed flushes into the timestamp they cover, which the pipeline
// then stores in the meta family (through the WAL) as the replay's starting point.
//
// Keeping that point out of the docs family is what lets a flushed file span only the records
// it holds: a mark key there would sit in every file, so every file would overlap the oldest
// records and each compaction would rewrite them.
#pragma once

#include <rocksdb/listener.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "storage/types.h"

namespace quarry::storage::internal {

class RecordsFlushTracker : public rocksdb::EventListener {
 public:
  explicit RecordsFlushTracker(std::string docs_family) : docs_family_(std::move(docs_family)) {}

  // A records write that includes every record change through `through` has been applied;
  // `sequence` is at least the last sequence number that write used.
  void NoteWritten(rocksdb::SequenceNumber sequence, Timestamp through);

  // The newest timestamp a completed flush of the docs family covers (0: none yet), raised
  // directly by a caller that flushed the family itself.
  Timestamp DurableThrough() const { return durable_through_.load(); }
  void NoteDurable(Timestamp through);

  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;

 private:
  const std::string docs_family_;
  std::mutex mu_;
  std::deque<std::pair<rocksdb::SequenceNumber, Timestamp>> pending_;  // guarded by mu_
  std::atomic<Timestamp> durable_through_{0};
};

}  // namespace quarry::storage::internal
