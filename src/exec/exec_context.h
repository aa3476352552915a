// What execution reads and writes through, for one operation.
#pragma once

#include <functional>
#include <memory>

#include "base/interrupt.h"
#include "base/status.h"
#include "storage/commit_pipeline.h"
#include "storage/engine.h"
#include "storage/transaction.h"
#include "storage/write_unit.h"

namespace quarry::catalog {
class Catalog;
}  // namespace quarry::catalog

namespace quarry::exec {

struct ExecContext {
  storage::Engine* engine = nullptr;
  catalog::Catalog* catalog = nullptr;
  // The operation's; plans keep it (a cursor's getMores check the Interrupt of the find that
  // opened it). Null: the operation cannot be interrupted.
  std::shared_ptr<const Interrupt> interrupt;
  // Plans are made for explain: they neither use nor fill the plan cache, so explain shows the
  // trial of every candidate.
  bool for_explain = false;
  // The multi-document transaction the operation runs in: reads see its snapshot and its own
  // writes. Null: the latest committed data.
  storage::Transaction* transaction = nullptr;

  const storage::RecordStore& records() const {
    return transaction != nullptr ? transaction->records() : engine->records();
  }
  const storage::IndexStore& indexes() const {
    return transaction != nullptr ? transaction->indexes() : engine->indexes();
  }
  // The pipeline whose latest records the operation reads; null in a transaction.
  const storage::CommitPipeline* reads_latest_of() const {
    return transaction != nullptr ? nullptr : &engine->pipeline();
  }

  Status CheckForInterrupt() const {
    return interrupt == nullptr ? Status::OK() : interrupt->Check();
  }
};

// Commits a unit the way the running command must: with its write concern's durability, and
// with the records a retryable write keeps (commands/ provides it). `ordered`: stop at the
// first failing mutation.
using Committer =
    std::function<StatusWith<storage::CommitResult>(storage::WriteUnit unit, bool ordered)>;

}  // namespace quarry::exec
