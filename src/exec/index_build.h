// Index builds over existing records while writes go on.
#pragma once

#include <functional>
#include <vector>

#include "base/status.h"
#include "catalog/collection_info.h"
#include "exec/exec_context.h"

namespace quarry::exec {

// Adds every record's keys to `indexes` of `info`, which the catalog already lists (not ready),
// so that every write committed since maintains them too. Reads every record (a large
// collection's on two threads, which take ranges of its id keys in turn), sorts their keys in
// memory and adds them at once as table files, together with the current keys of each record a
// writer changed meanwhile (storage::IndexBulkLoad); keys past 200 MB are instead added through
// commits of a few thousand records, each only for records still as read (storage's AddIndexKeys).
// Fails with DuplicateKey (11000) when two records share a key of a unique index, with 171 for
// parallel arrays, with Interrupted when `ctx`'s operation is killed, and with a write conflict
// when the collection or an index is dropped meanwhile. `progress(done)` is told how many records
// are done every few thousand.
Status BuildIndexes(const ExecContext& ctx, const catalog::CollectionInfo& info,
                    const std::vector<storage::IndexId>& indexes,
                    const std::function<void(std::uint64_t)>& progress = {});

// Completes, at start-up, every index the catalog lists as not ready: one whose build a crash
// interrupted (its partial keys are dropped and it is built again under a new id) or one
// recorded before Quarry built indexes. An index whose build fails (duplicate keys) is removed
// and the failure logged. Fails only when the catalog or the store cannot be written.
Status FinishIndexBuilds(const ExecContext& ctx);

}  // namespace quarry::exec
