// What a Transaction holds, shared by transaction.cc and the commit pipeline that creates it.
#pragma once

#include <rocksdb/utilities/write_batch_with_index.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "storage/commit_pipeline.h"
#include "storage/index_store.h"
#include "storage/read_view.h"
#include "storage/record_store.h"
#include "storage/snapshot_history.h"
#include "storage/transaction_locks.h"
#include "storage/write_unit.h"
#include "storage/write_unit_internal.h"

namespace quarry::storage::internal {

struct TransactionState {
  TransactionState(EngineState* engine_state, CommitPipeline* commit_pipeline, TransactionId txn,
                   std::shared_ptr<const SnapshotHandle> snapshot_handle)
      : engine(engine_state),
        pipeline(commit_pipeline),
        id(txn),
        read_timestamp(snapshot_handle->timestamp),
        snapshot(std::move(snapshot_handle)),
        writes(rocksdb::BytewiseComparator(), 0, /*overwrite_key=*/true),
        view{snapshot->snapshot, &writes},
        records(engine_state, &view),
        indexes(engine_state, &view) {}

  // Checks `m` and readies it for the commit; record changes are checked against the view,
  // hold their record and are staged in `writes`.
  Status StageMutation(Mutation& m);
  Status StageRecordChange(Mutation& m);
  Status CheckUniqueKeys(const Mutation& m);
  Status Hold(std::string_view key);
  Status HoldUniqueKeys(const Mutation& m);
  void ReleaseHolds() { pipeline->ReleaseHolds(id); }

  EngineState* engine;
  CommitPipeline* pipeline;
  TransactionId id;
  Timestamp read_timestamp;
  std::shared_ptr<const SnapshotHandle> snapshot;
  rocksdb::WriteBatchWithIndex writes;  // staged records and index keys, read over the snapshot
  ReadView view;
  RecordStore records;
  IndexStore indexes;
  WriteUnit staged;  // the mutations, in order, for the commit
  std::size_t staged_bytes = 0;
  std::unordered_set<std::string> held;  // record keys held through the pipeline
  bool read_only = false;                // a snapshot read outside any transaction
  Status conflict;                       // the first write conflict met, which every later
                                         // staging answers
  // The session that runs the transaction, which its oplog entries name.
  std::optional<bson::Document> lsid;
  std::int64_t txn_number = 0;
  std::string commit_record_name;  // empty: none
  std::string commit_record_value;
  std::vector<std::function<void(bool committed)>> end_hooks;
  bool ended = false;
};

}  // namespace quarry::storage::internal
