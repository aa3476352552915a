// A multi-document transaction's storage. Its reads see one snapshot of the database, taken
// between two commits, with the transaction's own writes on top. Its writes are checked and
// staged as they come, each record it writes held against other transactions (the first writer
// wins) and against plain writes (they wait); the staged writes then commit at once through the
// commit pipeline, as one atomic chunk, or not at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "storage/commit_pipeline.h"
#include "storage/index_store.h"
#include "storage/record_store.h"
#include "storage/types.h"
#include "storage/write_unit.h"

namespace quarry::storage {

namespace internal {
struct EngineState;
class TransactionLocks;
struct TransactionState;
}  // namespace internal

class Transaction {
 public:
  // Bytes of staged writes a transaction may hold (its records, index keys and oplog entries):
  // the whole transaction commits as one atomic RocksDB write, so it is held in memory until
  // then. Past it, Stage fails with TransactionTooLarge (257).
  static constexpr std::size_t kMaxStagedBytes = std::size_t{64} << 20;

  ~Transaction();  // ends the transaction uncommitted unless End came first
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Distinguishes this transaction's commit from other writers (CommitOptions::transaction).
  std::uint64_t id() const;
  // The timestamp of the latest commit the snapshot includes.
  Timestamp read_timestamp() const;

  // Reads through the transaction's view; valid as long as the transaction.
  const RecordStore& records() const;
  const IndexStore& indexes() const;

  // Checks `unit`'s record changes against what the transaction sees and stages them, so later
  // reads of the transaction see them. Errors per mutation, as a commit reports them (an ordered
  // unit stops at its first): DuplicateKey for an _id or unique key the transaction sees taken;
  // WriteConflict (112) when another open transaction has written the record, or a commit
  // changed it after the snapshot; TransactionTooLarge past kMaxStagedBytes;
  // OperationNotSupportedInTransaction for anything but inserts, updates, deletes, catalog and
  // meta puts and logged commands (a collection or index the transaction creates). REQUIRES:
  // the record changes carry their secondary index keys (exec/ attaches them).
  StatusWith<CommitResult> Stage(WriteUnit unit, bool ordered);

  // A meta entry that commits with the transaction's writes, in the same atomic write (how a
  // session records that its transaction committed). Written only if the transaction wrote.
  void SetCommitRecord(std::string name, std::string value);

  bool has_writes() const;
  std::size_t staged_bytes() const;

  // The staged writes, in order, for the commit (CommitOptions::transaction = id(),
  // all_or_nothing). The transaction keeps holding its records until End.
  WriteUnit TakeWrites();

  // Runs `hook` when the transaction ends, told whether its writes committed: how what the
  // transaction created outside storage (a catalog entry) is published or forgotten.
  void OnEnd(std::function<void(bool committed)> hook);
  // Ends the transaction: frees the records it holds (plain writes waiting for them go on) and
  // runs the OnEnd hooks. Call after the commit returns, or to abort. Only the first call acts.
  void End(bool committed);

 private:
  friend class CommitPipeline;
  explicit Transaction(std::unique_ptr<internal::TransactionState> state);

  std::unique_ptr<internal::TransactionState> state_;
};

}  // namespace quarry::storage
