// Staging checks mirror the commit pipeline's (StageMutation), against the transaction's view
// instead of the latest data, so a transaction meets its own duplicate keys and stale reads at
// the statement that causes them; the pipeline checks everything again at commit.
#include "storage/transaction.h"

#include <rocksdb/utilities/write_batch_with_index.h>

#include <array>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>

#include "storage/duplicate_key.h"
#include "storage/read_view.h"
#include "storage/record_compression.h"
#include "storage/transaction_state.h"
#include "storage/write_unit_internal.h"

namespace quarry::storage {
namespace {

using internal::Conflict;
using internal::Mutation;
using internal::MutationKind;

// The bytes stored under `key` in the docs family, read as `view` sees them (null: latest).
StatusWith<std::optional<std::string>> ReadRecord(const internal::EngineState& engine,
                                                  const internal::ReadView* view,
                                                  std::string_view key) {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = internal::ReadThrough(engine, view, engine.docs, key, &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return internal::FromRocks(s, "reading a record");
  return std::optional<std::string>(value.ToString());
}

}  // namespace

Transaction::Transaction(std::unique_ptr<internal::TransactionState> state)
    : state_(std::move(state)) {}

Transaction::~Transaction() { End(false); }

std::uint64_t Transaction::id() const { return state_->id; }
Timestamp Transaction::read_timestamp() const { return state_->read_timestamp; }
const RecordStore& Transaction::records() const { return state_->records; }
const IndexStore& Transaction::indexes() const { return state_->indexes; }
bool Transaction::has_writes() const { return !state_->staged.empty(); }
std::size_t Transaction::staged_bytes() const { return state_->staged_bytes; }

void Transaction::SetCommitRecord(std::string name, std::string value) {
  state_->commit_record_name = std::move(name);
  state_->commit_record_value = std::move(value);
}

WriteUnit Transaction::TakeWrites() {
  WriteUnit writes = std::exchange(state_->staged, WriteUnit());
  if (!writes.empty() && !state_->commit_record_name.empty()) {
    writes.PutMeta(state_->commit_record_name, state_->commit_record_value);
  }
  return writes;
}

void Transaction::OnEnd(std::function<void(bool committed)> hook) {
  state_->end_hooks.push_back(std::move(hook));
}

void Transaction::End(bool committed) {
  if (std::exchange(state_->ended, true)) return;
  state_->ReleaseHolds();
  for (auto& hook : std::exchange(state_->end_hooks, {})) hook(committed);
}

// Holds the record for this transaction, then makes sure no commit changed it after the
// snapshot. In that order: a plain write that commits after the hold waits for the transaction
// (the pipeline checks holds under the commit lock, which the hold also takes), and one that
// committed before it is visible to the comparison.
Status internal::TransactionState::Hold(std::string_view key) {
  if (held.contains(std::string(key))) return Status::OK();
  if (!pipeline->HoldForTransaction(id, key)) {
    return Conflict("another transaction is writing this document");
  }
  held.emplace(key);
  QUARRY_ASSIGN_OR_RETURN(std::optional<std::string> latest, ReadRecord(*engine, nullptr, key));
  internal::ReadView snapshot_only{view.snapshot, nullptr};
  QUARRY_ASSIGN_OR_RETURN(std::optional<std::string> as_of_snapshot,
                          ReadRecord(*engine, &snapshot_only, key));
  if (latest != as_of_snapshot) {
    return Conflict("the document changed after the transaction's snapshot");
  }
  return Status::OK();
}

Status internal::TransactionState::CheckUniqueKeys(const Mutation& m) {
  for (const internal::IndexWrite& write : m.index_writes) {
    if (!write.put || write.entry->unique == nullptr) continue;
    rocksdb::PinnableSlice owner;
    rocksdb::Status s = ReadThrough(*engine, &view, engine->index, write.key, &owner);
    if (s.IsNotFound()) continue;
    if (!s.ok()) return FromRocks(s, "reading an index key");
    // The owner's id key comes first in the value; id keys are prefix-free.
    if (!owner.ToStringView().starts_with(m.id_key())) {
      const IndexEntry& entry = *write.entry;
      return DuplicateKeyError(m.ns_text(), entry.unique->name, entry.unique->key_pattern,
                               entry.key_value);
    }
  }
  return Status::OK();
}

// As Hold, for the unique keys `m` gives its record: a key another transaction is giving a
// document, or one a commit gave another document after the snapshot, is a write conflict.
Status internal::TransactionState::HoldUniqueKeys(const Mutation& m) {
  for (const internal::IndexWrite& write : m.index_writes) {
    if (!write.put || write.entry->unique == nullptr) continue;
    if (!pipeline->HoldUniqueKeyForTransaction(id, write.key)) {
      return Conflict("another transaction is giving a document this unique key");
    }
    rocksdb::PinnableSlice owner;
    rocksdb::Status s = ReadThrough(*engine, nullptr, engine->index, write.key, &owner);
    if (s.IsNotFound()) continue;
    if (!s.ok()) return FromRocks(s, "reading an index key");
    if (!owner.ToStringView().starts_with(m.id_key())) {
      return Conflict("a commit gave another document this unique key after the snapshot");
    }
  }
  return Status::OK();
}

Status internal::TransactionState::StageRecordChange(Mutation& m) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<std::string> current, ReadRecord(*engine, &view, m.key));
  if (m.kind == MutationKind::kInsert) {
    if (current.has_value()) return DuplicateIdError(m.ns_text(), m.record_document().Get("_id"));
  } else if (!current.has_value() || !internal::StillHoldsPreImage(*current, m)) {
    return Conflict("the document changed since it was read; retry the operation");
  }
  QUARRY_RETURN_IF_ERROR(CheckUniqueKeys(m));
  QUARRY_RETURN_IF_ERROR(Hold(m.key));
  QUARRY_RETURN_IF_ERROR(HoldUniqueKeys(m));
  const std::size_t bytes = m.key.size() + m.oplog.size() + m.value.size();
  if (staged_bytes + bytes > Transaction::kMaxStagedBytes) {
    return Status(ErrorCode::kTransactionTooLarge,
                  "the transaction's writes exceed " +
                      std::to_string(Transaction::kMaxStagedBytes >> 20) + " MB");
  }
  staged_bytes += bytes;

  if (m.kind == MutationKind::kDelete) {
    QUARRY_RETURN_IF_ERROR(FromRocks(writes.Delete(engine->docs, m.key), "staging a delete"));
  } else {
    QUARRY_RETURN_IF_ERROR(
        FromRocks(writes.Put(engine->docs, m.key, m.record_bytes()), "staging a record"));
  }
  for (const internal::IndexWrite& write : m.index_writes) {
    if (!write.put) {
      QUARRY_RETURN_IF_ERROR(
          FromRocks(writes.Delete(engine->index, write.key), "staging an index key"));
      continue;
    }
    std::string value(m.id_key());
    value.append(write.entry->key_values);
    QUARRY_RETURN_IF_ERROR(
        FromRocks(writes.Put(engine->index, write.key, value), "staging an index key"));
  }
  if (!m.oplog.empty() && lsid.has_value()) {
    internal::AddTransactionFields(*lsid, txn_number, &m.oplog);
  }
  return Status::OK();
}

Status internal::TransactionState::StageMutation(Mutation& m) {
  switch (m.kind) {
    case MutationKind::kInsert:
    case MutationKind::kUpdate:
    case MutationKind::kDelete:
      return StageRecordChange(m);
    case MutationKind::kPutCatalog:
    case MutationKind::kPutMeta:
      return Status::OK();  // nothing the transaction's reads look up: they apply at commit
    case MutationKind::kOplogOnly:
      if (lsid.has_value()) internal::AddTransactionFields(*lsid, txn_number, &m.oplog);
      return Status::OK();
    default:
      return Status(ErrorCode::kOperationNotSupportedInTransaction,
                    "this change cannot be made in a transaction");
  }
}

StatusWith<CommitResult> Transaction::Stage(WriteUnit unit, bool ordered) {
  internal::TransactionState& state = *state_;
  CommitResult result;
  for (std::size_t k = 0; k < unit.mutations_.size(); ++k) {
    Mutation& m = unit.mutations_[k];
    // After a write conflict the transaction can only abort: a retry of the statement (exec/
    // retries plain writes) must not find the record held and go on.
    Status staged = state.conflict.ok() ? m.failure : state.conflict;
    if (state.read_only && staged.ok()) {
      staged = Status(ErrorCode::kInvalidOptions, "a snapshot read cannot write");
    }
    if (staged.ok()) {
      staged = state.StageMutation(m);
    }
    if (!staged.ok()) {
      if (staged.code() == ErrorCode::kWriteConflict) state.conflict = staged;
      result.errors.push_back({k, std::move(staged)});
      if (ordered) break;
      continue;
    }
    state.staged.mutations_.push_back(std::move(m));
    ++result.applied;
  }
  return result;
}

}  // namespace quarry::storage
