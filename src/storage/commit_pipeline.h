// The commit pipeline: the one place writes happen. It takes the commit lock, checks _id
// uniqueness and pre-images, gives each oplog entry the next timestamp, writes each chunk
// atomically (oplog entries, counters, catalog and meta changes through the WAL, then the
// records), and then tells the commit observers, in timestamp order.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_set>
#include <vector>

#include "base/interrupt.h"
#include "base/spinning_mutex.h"
#include "base/status.h"
#include "bson/value.h"
#include "storage/index_bulk_load.h"
#include "storage/types.h"
#include "storage/write_unit.h"

namespace quarry::storage {

class Transaction;

namespace internal {
struct EngineState;
struct ChunkScratch;
class TransactionLocks;
struct TransactionState;
struct SnapshotHandle;
class SnapshotHistory;
}  // namespace internal

enum class Durability : std::uint8_t {
  // The WAL is written to the OS before Commit returns (a crash of the process loses nothing);
  // the background syncer makes it durable within its interval. w:0 and w:1.
  kNone,
  // The WAL is synced to disk before Commit returns. j:true.
  kJournal,
};

struct CommitOptions {
  // Ordered: stop at the first failing mutation. Unordered: apply every other one.
  bool ordered = true;
  Durability durability = Durability::kNone;
  // A transaction's commit (Transaction::id()): its own held records are its to write. 0: a
  // plain write, which waits for records that open transactions hold.
  std::uint64_t transaction = 0;
  // The whole unit commits as one atomic chunk, whatever its size, or, if any mutation fails,
  // not at all (a transaction's commit).
  bool all_or_nothing = false;
  // Stops a plain write's wait for records a transaction holds (killOp, maxTimeMS). May be null.
  const Interrupt* interrupt = nullptr;
};

struct MutationError {
  std::size_t index = 0;  // as returned by the WriteUnit method
  Status status;
};

struct CommitResult {
  std::size_t applied = 0;            // mutations written
  std::vector<MutationError> errors;  // in index order; ordered commits have at most one
  Timestamp last_timestamp = 0;       // of the last oplog entry written, 0 if none
  // For kJournal: whether the WAL sync succeeded. The writes are applied either way.
  Status sync_status;
};

struct CommittedEntry {
  Timestamp ts = 0;
  CollectionId collection = 0;  // 0 for entries without a record change
  bson::DocumentView entry;     // with ts and wall
};

// One atomically committed chunk.
struct CommittedBatch {
  std::int64_t wall_ms = 0;
  std::vector<CommittedEntry> entries;  // in timestamp order; views valid during OnCommit only
};

// Told about every committed chunk, after it is visible to readers, one call at a time and in
// timestamp order. Keep OnCommit short (it delays the next committer's observers, not its
// write) and never call Commit from it.
class CommitObserver {
 public:
  virtual ~CommitObserver() = default;
  virtual void OnCommit(const CommittedBatch& batch) = 0;
};

class CommitPipeline {
 public:
  // Units are committed in chunks of about this many bytes; each chunk is atomic.
  static constexpr std::size_t kChunkBytes = std::size_t{4} << 20;

  explicit CommitPipeline(internal::EngineState* state);
  ~CommitPipeline();
  CommitPipeline(const CommitPipeline&) = delete;
  CommitPipeline& operator=(const CommitPipeline&) = delete;

  // Applies `unit`'s mutations in order; see WriteUnit for what can fail. Per-mutation
  // failures, including a storage write failure, are in the result. Fails as a whole only with
  // kShutdownInProgress when the engine is closing. Thread-safe.
  StatusWith<CommitResult> Commit(WriteUnit unit, const CommitOptions& options);

  // After AddObserver returns, every later chunk reaches `observer`; after RemoveObserver
  // returns, none does. The observer must outlive its registration.
  void AddObserver(CommitObserver* observer);
  void RemoveObserver(CommitObserver* observer);

  // A transaction whose reads see the database as of now, between two commits. `lsid` and
  // `txn_number` name it in its oplog entries (empty `lsid`: none).
  std::unique_ptr<Transaction> BeginTransaction(bson::DocumentView lsid, std::int64_t txn_number);
  // The same, seeing the database as of `at` (readConcern snapshot with atClusterTime): fails
  // as BeginSnapshotRead does for a time it cannot read at. Its writes conflict with every
  // commit since `at` that changed what they change.
  StatusWith<std::unique_ptr<Transaction>> BeginTransactionAt(bson::DocumentView lsid,
                                                              std::int64_t txn_number,
                                                              Timestamp at);
  // A read-only view of the database as of `at` (nullopt: now), for reads with readConcern
  // snapshot outside a transaction: any time of the last few minutes (SnapshotHistory); an
  // older one fails with SnapshotTooOld (239), a later one than the latest commit, or one
  // inside a chunk, with SnapshotUnavailable (246).
  StatusWith<std::unique_ptr<Transaction>> BeginSnapshotRead(std::optional<Timestamp> at);

  // Whether open transactions hold any record (plain writes may then have to wait).
  bool transactions_hold_records() const;

  // An index build reads records outside the commit lock and adds their keys later
  // (WriteUnit::AddIndexKeys); these tell which records changed in between, so the build adds
  // keys only for records that did not (the others got theirs from their writers).
  // TrackChanges starts noting which records of `collection` commits change; each call needs a
  // matching UntrackChanges. ReadPoint, taken just before a build opens a cursor, names the
  // chunks that cursor sees, and forgets changes that it sees anyway. One build of a
  // collection at a time.
  void TrackChanges(CollectionId collection);
  void UntrackChanges(CollectionId collection);
  std::uint64_t ReadPoint(CollectionId collection);

  // How many chunks have been written so far (WriteUnit::ReadAfter). A record read after this
  // returns sees every record change of those chunks.
  std::uint64_t ChunksWritten() const { return chunks_written_.load(std::memory_order_acquire); }

  // Lets go of the snapshots older than the history window now, rather than at the next commit.
  void ReleaseExpiredSnapshots();

  // Adds an index build's keys at once, as a table file, together with the keys that make every
  // record changed since the load's read point current (`current` tells them; it is called under
  // the commit lock, so it must not commit). Needs TrackChanges of the collection from before the
  // read point until it returns. Fails with kDuplicateKey when two records share a key of a
  // unique index, and with a write conflict when the collection or an index was dropped
  // meanwhile; for those nothing is added.
  Status IngestIndexKeys(IndexBulkLoad load, const CurrentIndexKeys& current);
  // Refuses new commits, then waits until every commit in progress has returned (its
  // journal sync and observers included). For Engine::Close.
  void Shutdown();

 private:
  friend struct internal::TransactionState;
  // Commits in progress, which Shutdown waits for: EnterCommit refuses with
  // kShutdownInProgress once Shutdown has begun; each success needs one LeaveCommit.
  Status EnterCommit();
  void LeaveCommit();
  struct LeaveCommitOnExit {
    CommitPipeline* pipeline;
    ~LeaveCommitOnExit() { pipeline->LeaveCommit(); }
  };

  // Holds record `key` for transaction `txn` (under the commit lock, so that no chunk is
  // between its check of the holds and its write); false when another transaction holds it.
  bool HoldForTransaction(std::uint64_t txn, std::string_view key);
  // The same for the key `index_key` of a unique index that `txn` gives a record: another
  // transaction giving one the same key conflicts, and a plain write waits.
  bool HoldUniqueKeyForTransaction(std::uint64_t txn, std::string_view index_key);
  // Frees what `txn` holds.
  void ReleaseHolds(std::uint64_t txn);
  // A plain write waits here, outside the commit lock, for the records of `unit` that open
  // transactions hold.
  Status WaitForHeldRecords(const WriteUnit& unit, const Interrupt* interrupt);

  // Commits mutations [begin, end) of `unit` under the commit lock; returns the index after
  // the last one it dealt with (less than `end` when an ordered chunk stops early).
  std::size_t CommitChunk(WriteUnit& unit, std::size_t begin, std::size_t end,
                          const CommitOptions& options, CommitResult* result, bool* stop);
  // The phases of a chunk, each under the commit lock (commit_pipeline.cc says why each
  // exists). The chunk's state is in scratch_.
  void LookUpRecords(const WriteUnit& unit, std::size_t begin, std::size_t end);
  Status StageMutation(internal::Mutation& m, std::size_t k);
  Status CheckUniqueKeys(const internal::Mutation& m);
  void StageIndexWrites(const internal::Mutation& m);
  void BatchIndexWrites();
  bool ChangedSinceRead(const internal::Mutation& m) const;
  void NoteTrackedChanges();
  void StageIndexDrop(IndexId index);
  bool IndexDropped(IndexId index) const;
  void LogMutation(internal::Mutation& m, Timestamp ts, std::int64_t wall_ms);
  void StageCountersAndFloor();
  Status WriteStaged(Timestamp last);
  void Publish(Timestamp last);

  internal::EngineState* state_;

  std::mutex active_mu_;
  std::condition_variable active_cv_;
  int active_commits_ = 0;  // guarded by active_mu_
  bool shut_down_ = false;  // guarded by active_mu_

  // The commit lock: one total order of oplog entries. Small writes on two network threads
  // contend for it many thousand times a second, each holding it for about ten microseconds.
  SpinningMutex commit_mu_{std::chrono::microseconds(50)};
  Timestamp last_assigned_ = 0;  // guarded by commit_mu_
  Timestamp floor_written_ = 0;  // the records' applied-through point last staged; commit_mu_
  std::unordered_set<CollectionId> dropped_;         // guarded by commit_mu_
  std::unordered_set<IndexId> dropped_indexes_;      // guarded by commit_mu_
  std::unique_ptr<internal::ChunkScratch> scratch_;  // guarded by commit_mu_
  std::unique_ptr<internal::TransactionLocks> transaction_locks_;
  std::unique_ptr<internal::TransactionLocks> unique_key_locks_;  // unique index keys
  std::unique_ptr<internal::SnapshotHistory> history_;            // guarded by commit_mu_
  // A snapshot taken now under the commit lock, between two chunks. REQUIRES: commit_mu_ held.
  std::shared_ptr<const internal::SnapshotHandle> SnapshotNowLocked();
  // The snapshot of the data as of `at` (nullopt: now) from the history, as BeginSnapshotRead
  // describes. Takes the commit lock.
  StatusWith<std::shared_ptr<const internal::SnapshotHandle>> SnapshotAt(
      std::optional<Timestamp> at);
  std::unique_ptr<Transaction> NewTransaction(
      std::shared_ptr<const internal::SnapshotHandle> snapshot, bson::DocumentView lsid,
      std::int64_t txn_number);
  std::atomic<std::uint64_t> next_transaction_{1};
  // Chunks written so far: a cursor opened after this reads each of them whole.
  // Written under commit_mu_, after the chunk's records; read without it by ChunksWritten.
  std::atomic<std::uint64_t> chunks_written_{0};
  // Collections whose index builds read records: record key -> the chunk that last changed it.
  struct TrackedChanges {
    int builds = 0;
    std::unordered_map<std::string, std::uint64_t> changed;
  };
  std::unordered_map<CollectionId, TrackedChanges> tracked_;  // guarded by commit_mu_

  // Held from the end of a chunk's write until its observers return; taken before the commit
  // lock is released, so observers see chunks in timestamp order.
  std::mutex observer_mu_;
  std::vector<CommitObserver*> observers_;  // guarded by observer_mu_
  std::atomic<std::size_t> observer_count_{0};
};

}  // namespace quarry::storage
