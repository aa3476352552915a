// The commit pipeline. Under the commit lock it does only what needs the lock: one MultiGet for
// the chunk's record keys, the checks, the oplog timestamps, and two writes: the oplog entries,
// counters and catalog changes through the WAL, then the records without it. Documents, keys
// and oplog entries were laid out by WriteUnit before.
//
// Why records skip the WAL: every record change is also in its oplog entry (`o` is the new
// document), so writing it to the WAL too would log each document twice, and the WAL's software
// CRC32C is the costliest part of an insert. The oplog is the redo log instead: the oplog key
// of a record change names the record, the docs family carries the timestamp its records are
// applied through, and Engine::Open replays the entries after it (storage/record_recovery.h).
#include "storage/commit_pipeline.h"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "base/check.h"
#include "base/clock.h"
#include "base/endian.h"
#include "base/log.h"
#include "storage/duplicate_key.h"
#include "storage/engine_internal.h"
#include "storage/record_compression.h"
#include "storage/transaction.h"
#include "storage/transaction_locks.h"
#include "storage/transaction_state.h"
#include "storage/write_unit_internal.h"

namespace quarry::storage {
namespace internal {

// Empties a hash container of ChunkScratch. clear() zeroes every bucket, and a bulk write
// leaves one per document of its largest chunk (tens of thousands for a chunk of a few
// megabytes): each later one-document write would zero them all again. A container far
// emptier than its buckets starts afresh.
template <typename Hashed>
void ClearHashed(Hashed& container) {
  constexpr std::size_t kBucketsAlwaysKept = 64;
  if (container.bucket_count() > kBucketsAlwaysKept &&
      container.size() * 4 < container.bucket_count()) {
    container = Hashed();
  } else {
    container.clear();
  }
}

// The state of the chunk being committed, in buffers reused from chunk to chunk (guarded by
// the commit lock).
struct ChunkScratch {
  rocksdb::WriteBatch batch;       // through the WAL: oplog, counters, catalog, meta
  rocksdb::WriteBatch docs_batch;  // records, without the WAL (rebuilt from the oplog)
  std::vector<rocksdb::Slice> keys;
  std::vector<rocksdb::PinnableSlice> values;
  std::vector<rocksdb::Status> statuses;
  std::size_t begin = 0;  // the chunk's first mutation
  // Per mutation of the chunk: index into keys, -1 (not read) or kPreImageIsCurrent.
  std::vector<std::int64_t> lookup_of;
  // The unique index keys the chunk puts, read in one MultiGet too: key -> index into them.
  std::vector<rocksdb::Slice> index_keys;
  std::vector<rocksdb::PinnableSlice> index_values;
  std::vector<rocksdb::Status> index_statuses;
  std::unordered_map<std::string_view, std::size_t> index_lookup;
  // The chunk's index writes, put into `batch` in key order when the chunk ends (or before an
  // index drop): a skip list that receives sorted keys resumes each search where the previous
  // insert ended, rather than from the top, which halves the memtable's cost of random keys.
  struct PendingIndexWrite {
    const IndexWrite* write;
    std::string_view id_key;
    std::size_t order;  // among the chunk's index writes: writes of one key keep it
  };
  std::vector<PendingIndexWrite> index_writes;
  // Unique index keys this chunk has written: key -> owning record's id key, nullopt when
  // deleted.
  std::unordered_map<std::string_view, std::optional<std::string_view>> index_overlay;
  // Records this chunk has already written: key -> new bytes, nullopt when deleted.
  std::unordered_map<std::string_view, std::optional<std::string_view>> overlay;
  std::unordered_map<CollectionId, CollectionStats> stats;  // collections touched, new totals
  std::unordered_set<IndexId> dropped_indexes;
  std::unordered_set<CollectionId> dropped;
  std::uint32_t position = 0;               // of the next oplog entry within the chunk
  std::vector<std::uint64_t> applied_tags;  // of the chunk's applied mutations, in order
  CommittedBatch committed;                 // entries only; wall_ms is set when handed to observers
  std::vector<std::pair<CollectionId, std::string_view>> tracked_changes;  // record keys
  std::uint64_t transaction = 0;  // CommitOptions::transaction of the chunk's commit

  void Reset(std::size_t first) {
    batch.Clear();
    docs_batch.Clear();
    keys.clear();
    values.clear();
    statuses.clear();
    begin = first;
    lookup_of.clear();
    index_keys.clear();
    index_values.clear();
    index_statuses.clear();
    ClearHashed(index_lookup);
    index_writes.clear();
    ClearHashed(index_overlay);
    ClearHashed(overlay);
    ClearHashed(stats);
    ClearHashed(dropped);
    ClearHashed(dropped_indexes);
    position = 0;
    applied_tags.clear();
    committed.entries.clear();
    tracked_changes.clear();
  }
};

}  // namespace internal

namespace {

// A flush or compaction that failed for want of a resource (descriptors, disk space) leaves
// RocksDB refusing every write until it is told to resume; once the resource is back the commit
// can go on. Tries that once; true when RocksDB resumed and the write is worth repeating.
bool ResumeAfterBackgroundError(rocksdb::DB* db, const rocksdb::Status& failed) {
  if (!failed.IsIOError() && !failed.IsNoSpace()) return false;
  const rocksdb::Status resumed = db->Resume();
  log::Write(resumed.ok() ? log::Severity::kInfo : log::Severity::kWarning, "STORAGE", 22319, "",
             resumed.ok() ? "Storage resumed writes after a background error"
                          : "Storage cannot resume writes yet",
             {{"error", failed.ToString()}, {"resume", resumed.ToString()}});
  return resumed.ok();
}

using internal::Conflict;
using internal::IsRecordMutation;
using internal::Mutation;
using internal::MutationKind;

// What a record key holds at this point of the chunk.
struct Current {
  bool exists = false;
  std::string_view bytes;
  Status error;
  bool is_pre_image = false;  // not read: the mutation's pre-image is known to be current
};

// ChunkScratch::lookup_of for a record the chunk does not read, because no chunk was written
// since the unit read its pre-image (WriteUnit::ReadAfter).
constexpr std::int64_t kPreImageIsCurrent = -2;

Status DuplicateInsert(const Mutation& m) {
  return DuplicateIdError(m.ns_text(), m.record_document().Get("_id"));
}

// MultiGet, except for a single key: a point write's one lookup costs RocksDB's MultiGet about
// 2,000 instructions more than a Get (its key contexts, their sort and batching).
void ReadKeys(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family,
              const std::vector<rocksdb::Slice>& keys, std::vector<rocksdb::PinnableSlice>* values,
              std::vector<rocksdb::Status>* statuses) {
  if (keys.empty()) return;
  values->resize(keys.size());
  statuses->resize(keys.size());
  if (keys.size() == 1) {
    (*statuses)[0] = db->Get(rocksdb::ReadOptions(), family, keys[0], &(*values)[0]);
    return;
  }
  db->MultiGet(rocksdb::ReadOptions(), family, keys.size(), keys.data(), values->data(),
               statuses->data());
}

}  // namespace

CommitPipeline::CommitPipeline(internal::EngineState* state)
    : state_(state),
      last_assigned_(state->latest_timestamp.load()),
      scratch_(std::make_unique<internal::ChunkScratch>()),
      transaction_locks_(std::make_unique<internal::TransactionLocks>()),
      unique_key_locks_(std::make_unique<internal::TransactionLocks>()),
      history_(std::make_unique<internal::SnapshotHistory>(state->snapshot_history_window)) {}

CommitPipeline::~CommitPipeline() = default;

void CommitPipeline::AddObserver(CommitObserver* observer) {
  // Taking the commit lock orders the registration with chunks: a chunk that starts after
  // this returns sees the new observer count.
  std::lock_guard commit_lock(commit_mu_);
  std::lock_guard observer_lock(observer_mu_);
  observers_.push_back(observer);
  observer_count_.store(observers_.size());
}

void CommitPipeline::RemoveObserver(CommitObserver* observer) {
  std::lock_guard observer_lock(observer_mu_);
  std::erase(observers_, observer);
  observer_count_.store(observers_.size());
}

void CommitPipeline::Shutdown() {
  {
    std::unique_lock lock(active_mu_);
    shut_down_ = true;
    active_cv_.wait(lock, [this] { return active_commits_ == 0; });
  }
  std::lock_guard commit_lock(commit_mu_);
  history_->Clear();  // its snapshots go before the database closes
}

Status CommitPipeline::EnterCommit() {
  std::lock_guard lock(active_mu_);
  if (shut_down_) {
    return Status(ErrorCode::kShutdownInProgress, "the storage engine is shutting down");
  }
  ++active_commits_;
  return Status::OK();
}

void CommitPipeline::LeaveCommit() {
  std::lock_guard lock(active_mu_);
  if (--active_commits_ == 0) active_cv_.notify_all();
}

StatusWith<CommitResult> CommitPipeline::Commit(WriteUnit unit, const CommitOptions& options) {
  QUARRY_RETURN_IF_ERROR(EnterCommit());
  LeaveCommitOnExit leave{this};

  if (options.transaction == 0 && transactions_hold_records()) {
    QUARRY_RETURN_IF_ERROR(WaitForHeldRecords(unit, options.interrupt));
  }
  CommitResult result;
  const std::size_t total = unit.mutations_.size();
  std::size_t next = 0;
  bool stop = false;
  while (next < total && !stop) {
    std::size_t end = next;
    std::size_t bytes = 0;
    while (end < total && (end == next || bytes < kChunkBytes || options.all_or_nothing)) {
      const Mutation& m = unit.mutations_[end];
      bytes += m.key.size() + m.value.size() + m.oplog.size();
      ++end;
    }
    next = CommitChunk(unit, next, end, options, &result, &stop);
  }
  if (options.durability == Durability::kJournal && result.applied > 0) {
    // Outside the commit lock: other committers go on while this one waits for the disk.
    rocksdb::Status s = state_->db->SyncWAL();
    state_->journal_syncs.fetch_add(1);
    if (!s.ok()) result.sync_status = internal::FromRocks(s, "syncing the write-ahead log");
  }
  return result;
}

std::size_t CommitPipeline::CommitChunk(WriteUnit& unit, std::size_t begin, std::size_t end,
                                        const CommitOptions& options, CommitResult* result,
                                        bool* stop) {
  std::vector<Mutation>& mutations = unit.mutations_;
  std::unique_lock commit_lock(commit_mu_);
  internal::ChunkScratch& s = *scratch_;
  s.Reset(begin);
  s.transaction = options.transaction;
  const bool notify = observer_count_.load() > 0;  // stable: AddObserver takes the commit lock
  LookUpRecords(unit, begin, end);

  // Oplog timestamps: consecutive within the chunk, above every earlier one even if the clock
  // went back (or the process restarted on a machine whose clock is behind).
  const std::int64_t wall_ms = NowMillis();
  const auto now_seconds = static_cast<std::uint32_t>(wall_ms / 1000);
  const Timestamp first_ts = now_seconds > TimestampSeconds(last_assigned_)
                                 ? MakeTimestamp(now_seconds, 1)
                                 : last_assigned_ + 1;
  Timestamp next_ts = first_ts;
  const std::size_t errors_before = result->errors.size();
  std::size_t applied = 0;
  std::size_t k = begin;
  for (; k < end; ++k) {
    Mutation& m = mutations[k];
    Status error = StageMutation(m, k);
    if (!error.ok()) {
      result->errors.push_back({k, std::move(error)});
      if (options.ordered) {
        *stop = true;
        break;
      }
      continue;
    }
    if (m.tag.has_value()) s.applied_tags.push_back(*m.tag);
    if (!m.oplog.empty()) {
      const Timestamp ts = next_ts++;
      LogMutation(m, ts, wall_ms);
      if (notify) {
        s.committed.entries.push_back({ts, m.collection, bson::DocumentView(m.oplog.data())});
      }
    }
    ++applied;
  }
  const std::size_t chunk_end = *stop ? k + 1 : end;
  // Release the block-cache pins of the lookups now, not at the next chunk: the engine may
  // close before there is one.
  s.values.clear();
  s.index_values.clear();
  if (options.all_or_nothing && result->errors.size() > errors_before) {
    *stop = true;  // nothing of the unit is written
    return end;
  }

  const Timestamp last = next_ts != first_ts ? next_ts - 1 : last_assigned_;
  if (!s.applied_tags.empty() && unit.chunk_record_) {
    WriteUnit::MetaEntry record = unit.chunk_record_(s.applied_tags);
    s.batch.Put(state_->meta, record.name, record.value);
    for (const std::string& name : record.deletes) s.batch.Delete(state_->meta, name);
  }
  BatchIndexWrites();
  StageCountersAndFloor();
  Status written = WriteStaged(last);
  if (!written.ok()) {
    // Nothing of this chunk is in: report it, and do not try further chunks.
    result->errors.resize(errors_before);
    for (std::size_t j = begin; j < mutations.size(); ++j) {
      result->errors.push_back({j, written});
      if (options.ordered) break;
    }
    *stop = true;
    return mutations.size();
  }
  ++chunks_written_;
  NoteTrackedChanges();
  Publish(last);
  if (next_ts != first_ts) {
    history_->Add(first_ts, SnapshotNowLocked(), std::chrono::steady_clock::now());
  }
  if (next_ts != first_ts) result->last_timestamp = last;
  result->applied += applied;

  if (!notify || s.committed.entries.empty()) return chunk_end;
  // The entries point into `unit`, not into the scratch, which the next chunk reuses as soon
  // as the commit lock is free: move them out first.
  CommittedBatch batch;
  batch.wall_ms = wall_ms;
  batch.entries = std::move(s.committed.entries);
  // Hand over from the commit lock to the observer lock, so observers see chunks in order
  // while the next committer already writes.
  std::unique_lock observer_lock(observer_mu_);
  commit_lock.unlock();
  for (CommitObserver* observer : observers_) observer->OnCommit(batch);
  return chunk_end;
}

// One MultiGet for every record key of the chunk: the existence and pre-image checks then
// cost no further reads under the lock. An update's or delete's record is not read when no
// chunk has been written since the unit read its pre-image, which is then still stored.
void CommitPipeline::LookUpRecords(const WriteUnit& unit, std::size_t begin, std::size_t end) {
  internal::ChunkScratch& s = *scratch_;
  s.lookup_of.assign(end - begin, -1);
  const bool pre_images_current =
      unit.read_after_ == chunks_written_.load(std::memory_order_relaxed);
  for (std::size_t k = begin; k < end; ++k) {
    const Mutation& m = unit.mutations_[k];
    const bool reads_record = IsRecordMutation(m.kind);
    if (!(reads_record || m.kind == MutationKind::kAddIndexKeys) ||
        dropped_.contains(m.collection)) {
      continue;
    }
    if (reads_record && pre_images_current && m.kind != MutationKind::kInsert) {
      s.lookup_of[k - begin] = kPreImageIsCurrent;
    } else if (reads_record) {
      s.lookup_of[k - begin] = static_cast<std::int64_t>(s.keys.size());
      s.keys.emplace_back(m.key);
    }
    for (const internal::IndexWrite& write : m.index_writes) {
      if (!write.put || write.entry->unique == nullptr) continue;
      if (s.index_lookup.emplace(write.key, s.index_keys.size()).second) {
        s.index_keys.emplace_back(write.key);
      }
    }
  }
  ReadKeys(state_->db, state_->docs, s.keys, &s.values, &s.statuses);
  ReadKeys(state_->db, state_->index, s.index_keys, &s.index_values, &s.index_statuses);
}

// Fails with DuplicateKey when a unique key `m` puts belongs to another record, as the index
// holds it at this point of the chunk.
Status CommitPipeline::CheckUniqueKeys(const Mutation& m) {
  internal::ChunkScratch& s = *scratch_;
  for (const internal::IndexWrite& write : m.index_writes) {
    if (!write.put || write.entry->unique == nullptr || IndexDropped(write.entry->index)) {
      continue;
    }
    std::optional<std::string_view> owner;
    if (auto it = s.index_overlay.find(write.key); it != s.index_overlay.end()) {
      owner = it->second;
    } else {
      const std::size_t lookup = s.index_lookup.at(write.key);
      const rocksdb::Status& status = s.index_statuses[lookup];
      if (!status.ok() && !status.IsNotFound()) {
        return internal::FromRocks(status, "reading an index key");
      }
      if (status.ok()) {
        owner = std::string_view(s.index_values[lookup].data(), s.index_values[lookup].size());
      }
    }
    // A stored value is the owner's id key and maybe key values after it; id keys are
    // prefix-free encodings, so it starts with this record's id key only if it is this record.
    if (owner.has_value() && !owner->starts_with(m.id_key())) {
      const IndexEntry& entry = *write.entry;
      return DuplicateKeyError(m.ns_text(), entry.unique->name, entry.unique->key_pattern,
                               entry.key_value);
    }
    if (unique_key_locks_->any() && unique_key_locks_->HeldByOther(write.key, s.transaction)) {
      return Conflict("a transaction is giving another document this unique key");
    }
  }
  return Status::OK();
}

bool CommitPipeline::IndexDropped(IndexId index) const {
  return dropped_indexes_.contains(index) || scratch_->dropped_indexes.contains(index);
}

// Stages `m`'s index writes (through the WAL, with the oplog: index entries are not redone
// from it) and notes them for the rest of the chunk.
void CommitPipeline::StageIndexWrites(const Mutation& m) {
  internal::ChunkScratch& s = *scratch_;
  for (const internal::IndexWrite& write : m.index_writes) {
    // A writer that prepared its keys before the index was dropped: they have no index now.
    if (IndexDropped(write.entry->index)) continue;
    s.index_writes.push_back({&write, m.id_key(), s.index_writes.size()});
    // Only unique keys are looked up again (CheckUniqueKeys); other keys end in the record's
    // id key, so no two records share one.
    if (write.entry->unique == nullptr) continue;
    s.index_overlay[write.key] =
        write.put ? std::optional<std::string_view>(m.id_key()) : std::nullopt;
  }
}

// Puts the chunk's pending index writes into the batch, in key order; writes of one key keep
// their order.
void CommitPipeline::BatchIndexWrites() {
  internal::ChunkScratch& s = *scratch_;
  // std::sort with the order as a tie-break: std::stable_sort's temporary buffer trips ASan's
  // alloc-dealloc check in this library.
  std::sort(s.index_writes.begin(), s.index_writes.end(), [](const auto& a, const auto& b) {
    const int by_key = a.write->key.compare(b.write->key);
    return by_key != 0 ? by_key < 0 : a.order < b.order;
  });
  for (const internal::ChunkScratch::PendingIndexWrite& pending : s.index_writes) {
    const internal::IndexWrite& write = *pending.write;
    if (!write.put) {
      s.batch.Delete(state_->index, write.key);
      continue;
    }
    internal::PutIndexEntry(&s.batch, state_->index, write.key, pending.id_key,
                            write.entry->key_values);
  }
  s.index_writes.clear();
}

// Whether the record an index build read for `m` may have changed since: a chunk its cursor
// did not see whole changed it.
bool CommitPipeline::ChangedSinceRead(const Mutation& m) const {
  auto tracked = tracked_.find(m.collection);
  QUARRY_CHECK(tracked != tracked_.end());  // builds track their collection's changes
  auto changed = tracked->second.changed.find(m.key);
  return changed != tracked->second.changed.end() && changed->second > m.read_point;
}

// Notes the records the chunk just written changed, for the builds that read them.
void CommitPipeline::NoteTrackedChanges() {
  for (const auto& [collection, key] : scratch_->tracked_changes) {
    tracked_[collection].changed.insert_or_assign(std::string(key), chunks_written_);
  }
}

void CommitPipeline::TrackChanges(CollectionId collection) {
  std::lock_guard commit_lock(commit_mu_);
  ++tracked_[collection].builds;
}

void CommitPipeline::UntrackChanges(CollectionId collection) {
  std::lock_guard commit_lock(commit_mu_);
  auto tracked = tracked_.find(collection);
  if (tracked != tracked_.end() && --tracked->second.builds <= 0) tracked_.erase(tracked);
}

void CommitPipeline::ReleaseExpiredSnapshots() {
  std::lock_guard commit_lock(commit_mu_);
  history_->Prune(std::chrono::steady_clock::now());
}

std::uint64_t CommitPipeline::ReadPoint(CollectionId collection) {
  std::lock_guard commit_lock(commit_mu_);
  auto tracked = tracked_.find(collection);
  if (tracked != tracked_.end()) {
    std::erase_if(tracked->second.changed,
                  [this](const auto& change) { return change.second <= chunks_written_; });
  }
  return chunks_written_;
}

// Drops every key of `index` from the chunk's notes, and leaves the stored ones to the
// reclaimer (storage/dropped_keys.h says why there is no range delete).
void CommitPipeline::StageIndexDrop(IndexId index) {
  internal::ChunkScratch& s = *scratch_;
  BatchIndexWrites();  // the index's earlier writes go in before it is marked dropped
  std::string prefix = internal::IndexPrefix(index);
  s.batch.Put(state_->meta, internal::DroppedIndexKeysName(index), "");
  s.dropped_indexes.insert(index);
  std::erase_if(s.index_overlay,
                [&](const auto& entry) { return entry.first.starts_with(prefix); });
}

// Checks mutation `k` against what its key holds at this point of the chunk (an earlier
// mutation of the chunk may have changed it) and stages its write; an error leaves nothing
// staged.
Status CommitPipeline::StageMutation(Mutation& m, std::size_t k) {
  internal::ChunkScratch& s = *scratch_;
  auto stats_of = [&](CollectionId collection) -> CollectionStats& {
    auto it = s.stats.find(collection);
    if (it == s.stats.end()) it = s.stats.emplace(collection, state_->stats.Get(collection)).first;
    return it->second;
  };
  auto current = [&]() -> Current {
    if (auto it = s.overlay.find(m.key); it != s.overlay.end()) {
      if (!it->second.has_value()) return {};
      return {true, *it->second, Status::OK()};
    }
    const std::int64_t lookup = s.lookup_of[k - s.begin];
    if (lookup == kPreImageIsCurrent) return {true, {}, Status::OK(), true};
    const rocksdb::Status& status = s.statuses[lookup];
    if (status.IsNotFound()) return {};
    if (!status.ok()) return {false, {}, internal::FromRocks(status, "reading a record")};
    return {true, std::string_view(s.values[lookup].data(), s.values[lookup].size()), Status::OK()};
  };
  if (!m.failure.ok()) return m.failure;

  switch (m.kind) {
    case MutationKind::kInsert:
    case MutationKind::kUpdate:
    case MutationKind::kDelete: {
      if (dropped_.contains(m.collection) || s.dropped.contains(m.collection)) {
        return Conflict("the collection was dropped while this write was prepared");
      }
      if (transaction_locks_->HeldByOther(m.key, s.transaction)) {
        return Conflict("a transaction is writing this document");
      }
      Current cur = current();
      if (!cur.error.ok()) return cur.error;
      CollectionStats& stats = stats_of(m.collection);
      if (m.kind == MutationKind::kInsert) {
        if (cur.exists) return DuplicateInsert(m);
        QUARRY_RETURN_IF_ERROR(CheckUniqueKeys(m));
        StageIndexWrites(m);
        if (tracked_.contains(m.collection)) s.tracked_changes.emplace_back(m.collection, m.key);
        s.docs_batch.Put(state_->docs, m.key, m.record_bytes());
        s.overlay[m.key] = m.record_bytes();
        stats.count += 1;
        stats.data_bytes += static_cast<std::int64_t>(m.record_document().bytes().size());
        return Status::OK();
      }
      if (!cur.exists || (!cur.is_pre_image && !internal::StillHoldsPreImage(cur.bytes, m))) {
        return Conflict("the document changed since it was read; retry the operation");
      }
      QUARRY_RETURN_IF_ERROR(CheckUniqueKeys(m));
      StageIndexWrites(m);
      if (tracked_.contains(m.collection)) s.tracked_changes.emplace_back(m.collection, m.key);
      const auto pre_size = static_cast<std::int64_t>(m.pre_image().size());
      if (m.kind == MutationKind::kUpdate) {
        s.docs_batch.Put(state_->docs, m.key, m.record_bytes());
        s.overlay[m.key] = m.record_bytes();
        stats.data_bytes +=
            static_cast<std::int64_t>(m.record_document().bytes().size()) - pre_size;
      } else {
        s.docs_batch.Delete(state_->docs, m.key);
        s.overlay[m.key] = std::nullopt;
        stats.count -= 1;
        stats.data_bytes -= pre_size;
      }
      return Status::OK();
    }
    case MutationKind::kAddIndexKeys: {
      if (dropped_.contains(m.collection) || s.dropped.contains(m.collection)) {
        return Conflict("the collection was dropped while its index was being built");
      }
      // Changed or gone since the build read it: its writer has maintained the index.
      if (ChangedSinceRead(m)) return Status::OK();
      for (const IndexEntry& entry : m.index_entries) {
        if (IndexDropped(entry.index)) return Conflict("the index was dropped while it was built");
      }
      QUARRY_RETURN_IF_ERROR(CheckUniqueKeys(m));
      StageIndexWrites(m);
      return Status::OK();
    }
    case MutationKind::kDropIndexKeys:
      for (IndexId index : m.indexes) StageIndexDrop(index);
      return Status::OK();
    case MutationKind::kDropCollectionRecords: {
      for (IndexId index : m.indexes) StageIndexDrop(index);
      std::string prefix = internal::CollectionPrefix(m.collection);
      // No range delete: the reclaimer removes the records once no snapshot can read them, and
      // this note keeps the drop across restarts until it has.
      s.batch.Put(state_->meta, internal::DroppedRecordsName(m.collection), "");
      s.batch.Delete(state_->meta, internal::StatsName(m.collection));
      s.stats.erase(m.collection);
      s.dropped.insert(m.collection);
      std::erase_if(s.overlay, [&](const auto& entry) { return entry.first.starts_with(prefix); });
      return Status::OK();
    }
    case MutationKind::kPutCatalog:
      s.batch.Put(state_->catalog, m.key, m.value);
      return Status::OK();
    case MutationKind::kDeleteCatalog:
      s.batch.Delete(state_->catalog, m.key);
      return Status::OK();
    case MutationKind::kPutMeta:
      s.batch.Put(state_->meta, m.key, m.value);
      return Status::OK();
    case MutationKind::kDeleteMeta:
      s.batch.Delete(state_->meta, m.key);
      return Status::OK();
    case MutationKind::kOplogOnly:
      return Status::OK();
  }
  return Status::OK();
}

// Stamps the entry's ts and wall in place and stages it. The key of a record change also
// names the record and what to redo, so recovery needs no catalog to replay it.
void CommitPipeline::LogMutation(Mutation& m, Timestamp ts, std::int64_t wall_ms) {
  internal::ChunkScratch& s = *scratch_;
  StoreLittleEndian64(ts, m.oplog.data() + internal::kOplogTsOffset);
  StoreLittleEndian64(static_cast<std::uint64_t>(wall_ms),
                      m.oplog.data() + internal::OplogWallOffset(m.oplog));
  const std::uint32_t position = s.position++;
  if (!IsRecordMutation(m.kind)) {
    s.batch.Put(state_->oplog, internal::OplogKey(ts, position), m.oplog);
    return;
  }
  const internal::RedoKind redo =
      m.kind == MutationKind::kDelete ? internal::RedoKind::kDelete : internal::RedoKind::kPut;
  s.batch.Put(state_->oplog, internal::RecordOplogKey(ts, position, redo, m.key), m.oplog);
}

// The collections' new counters go with the oplog entries, and so does the newest point the
// docs family is known to be on disk through, once a flush has moved it (recovery starts there).
void CommitPipeline::StageCountersAndFloor() {
  internal::ChunkScratch& s = *scratch_;
  for (const auto& [collection, stats] : s.stats) {
    // An update that keeps the document's size leaves the counters as they are on disk, and
    // rewriting them would cost a memtable insert and WAL bytes on every such update.
    const CollectionStats stored = state_->stats.Get(collection);
    if (stats.count == stored.count && stats.data_bytes == stored.data_bytes) continue;
    s.batch.Put(state_->meta, internal::StatsName(collection), internal::EncodeStats(stats));
  }
  const Timestamp durable = state_->records_flushes->DurableThrough();
  // Read `durable` before the flag: a flush it stands for completed before a checkpoint that
  // froze the point after this check, so that checkpoint holds the flushed records.
  if (durable <= floor_written_ || state_->records_point_frozen.load()) return;
  std::string floor;
  AppendBigEndian64(durable, &floor);
  s.batch.Put(state_->meta, internal::kRecordsAppliedThroughName, floor);
  floor_written_ = durable;
}

// Two writes: the oplog first, through the WAL, then the records without it. Records must
// never be on disk ahead of the entries that redo them.
Status CommitPipeline::WriteStaged(Timestamp last) {
  internal::ChunkScratch& s = *scratch_;
  if (s.batch.Count() == 0 && s.docs_batch.Count() == 0) return Status::OK();
  rocksdb::WriteOptions write_options;
  write_options.sync = false;  // the WAL reaches the OS now, the disk by sync (see Commit)
  if (s.batch.Count() > 0) {
    rocksdb::Status written = state_->db->Write(write_options, &s.batch);
    if (!written.ok() && ResumeAfterBackgroundError(state_->db, written)) {
      written = state_->db->Write(write_options, &s.batch);
    }
    QUARRY_RETURN_IF_ERROR(internal::FromRocks(written, "writing a commit batch"));
  }
  if (s.docs_batch.Count() == 0) return Status::OK();
  rocksdb::WriteOptions no_wal;
  no_wal.disableWAL = true;
  rocksdb::Status records = state_->db->Write(no_wal, &s.docs_batch);
  if (!records.ok() && ResumeAfterBackgroundError(state_->db, records)) {
    records = state_->db->Write(no_wal, &s.docs_batch);
  }
  if (!records.ok()) {
    // The chunk is committed (its oplog entries are durable) but its records cannot be
    // applied: only a restart, which replays them, makes the two agree again.
    log::Write(log::Severity::kFatal, "STORAGE", 22318, "", "Applying committed records failed",
               {{"error", records.ToString()}});
    QUARRY_CHECK(records.ok());
  }
  state_->records_flushes->NoteWritten(state_->db->GetLatestSequenceNumber(), last);
  return Status::OK();
}

std::shared_ptr<const internal::SnapshotHandle> CommitPipeline::SnapshotNowLocked() {
  // Between two chunks: a snapshot never holds half of one (records are written apart from
  // their oplog entries and index keys).
  return std::make_shared<const internal::SnapshotHandle>(state_->db, state_->db->GetSnapshot(),
                                                          last_assigned_);
}

std::unique_ptr<Transaction> CommitPipeline::NewTransaction(
    std::shared_ptr<const internal::SnapshotHandle> snapshot, bson::DocumentView lsid,
    std::int64_t txn_number) {
  auto state = std::make_unique<internal::TransactionState>(
      state_, this, next_transaction_.fetch_add(1), std::move(snapshot));
  if (!lsid.empty()) {
    state->lsid = bson::Document::Copy(lsid);
    state->txn_number = txn_number;
  }
  return std::unique_ptr<Transaction>(new Transaction(std::move(state)));
}

std::unique_ptr<Transaction> CommitPipeline::BeginTransaction(bson::DocumentView lsid,
                                                              std::int64_t txn_number) {
  std::shared_ptr<const internal::SnapshotHandle> snapshot;
  {
    std::lock_guard commit_lock(commit_mu_);
    snapshot = SnapshotNowLocked();
  }
  return NewTransaction(std::move(snapshot), lsid, txn_number);
}

StatusWith<std::unique_ptr<Transaction>> CommitPipeline::BeginTransactionAt(bson::DocumentView lsid,
                                                                            std::int64_t txn_number,
                                                                            Timestamp at) {
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const internal::SnapshotHandle> snapshot, SnapshotAt(at));
  return NewTransaction(std::move(snapshot), lsid, txn_number);
}

StatusWith<std::shared_ptr<const internal::SnapshotHandle>> CommitPipeline::SnapshotAt(
    std::optional<Timestamp> at) {
  std::lock_guard commit_lock(commit_mu_);
  const Timestamp when = at.value_or(last_assigned_);
  if (when > last_assigned_) {
    return Status(ErrorCode::kSnapshotUnavailable,
                  "Read timestamp is later than the latest cluster time");
  }
  std::shared_ptr<const internal::SnapshotHandle> latest = history_->Latest();
  if (when == last_assigned_ && (latest == nullptr || latest->timestamp != last_assigned_)) {
    // Nothing committed since the start: the history begins now.
    history_->Add(last_assigned_, SnapshotNowLocked(), std::chrono::steady_clock::now());
  }
  return history_->At(when);
}

StatusWith<std::unique_ptr<Transaction>> CommitPipeline::BeginSnapshotRead(
    std::optional<Timestamp> at) {
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const internal::SnapshotHandle> snapshot, SnapshotAt(at));
  std::unique_ptr<Transaction> view = NewTransaction(std::move(snapshot), {}, 0);
  view->state_->read_only = true;
  return view;
}

bool CommitPipeline::transactions_hold_records() const {
  return transaction_locks_->any() || unique_key_locks_->any();
}

bool CommitPipeline::HoldForTransaction(std::uint64_t txn, std::string_view key) {
  std::lock_guard commit_lock(commit_mu_);
  return transaction_locks_->Acquire(txn, key);
}

bool CommitPipeline::HoldUniqueKeyForTransaction(std::uint64_t txn, std::string_view index_key) {
  std::lock_guard commit_lock(commit_mu_);
  return unique_key_locks_->Acquire(txn, index_key);
}

void CommitPipeline::ReleaseHolds(std::uint64_t txn) {
  transaction_locks_->ReleaseAll(txn);
  unique_key_locks_->ReleaseAll(txn);
}

Status CommitPipeline::WaitForHeldRecords(const WriteUnit& unit, const Interrupt* interrupt) {
  std::vector<std::string_view> records;
  std::vector<std::string_view> unique_keys;
  for (const Mutation& m : unit.mutations_) {
    if (!IsRecordMutation(m.kind)) continue;
    if (transaction_locks_->HeldByOther(m.key, 0)) records.emplace_back(m.key);
    for (const internal::IndexWrite& write : m.index_writes) {
      if (write.put && write.entry->unique != nullptr &&
          unique_key_locks_->HeldByOther(write.key, 0)) {
        unique_keys.emplace_back(write.key);
      }
    }
  }
  if (!records.empty()) {
    QUARRY_RETURN_IF_ERROR(transaction_locks_->WaitUntilFree(records, interrupt));
  }
  if (unique_keys.empty()) return Status::OK();
  return unique_key_locks_->WaitUntilFree(unique_keys, interrupt);
}

// Makes the chunk visible: readers see oplog entries up to the new latest timestamp, and the
// counters and drops take effect.
void CommitPipeline::Publish(Timestamp last) {
  internal::ChunkScratch& s = *scratch_;
  last_assigned_ = last;
  state_->latest_timestamp.store(last);
  for (const auto& [collection, stats] : s.stats) state_->stats.Set(collection, stats);
  if (s.dropped.empty() && s.dropped_indexes.empty()) return;
  // Commits run only while the engine is open (Close shuts the pipeline first), so the
  // reclaimer is there.
  const std::uint64_t sequence = state_->db->GetLatestSequenceNumber();
  for (CollectionId collection : s.dropped) {
    state_->stats.Erase(collection);
    dropped_.insert(collection);
    state_->reclaimer->Enqueue(internal::DroppedRecordsRange(*state_, collection, sequence));
  }
  for (IndexId index : s.dropped_indexes) {
    dropped_indexes_.insert(index);
    state_->reclaimer->Enqueue(internal::DroppedIndexKeysRange(*state_, index, sequence));
  }
}

}  // namespace quarry::storage
