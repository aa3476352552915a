// Secondary index upkeep for every record write: a unit's record changes get the index keys of
// the specs current when it commits.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "storage/commit_pipeline.h"
#include "storage/transaction.h"
#include "storage/write_unit.h"

namespace quarry::exec {

// Commits `unit` after giving each of its inserts, updates and deletes the secondary index
// keys it removes and adds. The keys are computed, and the unit committed, while the writers
// lock of every collection it touches is held shared, so no index spec changes in between:
// an index published before the commit gets the commit's keys, one published after is built
// from records that already include it. A record whose keys cannot be made (parallel arrays,
// 171) fails alone, in its place in the unit. An index that becomes multikey is marked so,
// durably, before the commit that makes it so.
StatusWith<storage::CommitResult> CommitMaintainingIndexes(catalog::Catalog& catalog,
                                                           storage::CommitPipeline& pipeline,
                                                           storage::WriteUnit unit,
                                                           const storage::CommitOptions& options);

// Stages `unit` in the transaction `txn`, each record change with the secondary index keys it
// removes and adds (as CommitMaintainingIndexes attaches them), so the transaction's later reads
// through indexes see it.
StatusWith<storage::CommitResult> StageMaintainingIndexes(catalog::Catalog& catalog,
                                                          storage::Transaction& txn,
                                                          storage::WriteUnit unit, bool ordered);

// Commits what `txn` staged, all or nothing, with the index keys of the specs current at the
// commit, then frees the records it held.
StatusWith<storage::CommitResult> CommitTransaction(catalog::Catalog& catalog,
                                                    storage::CommitPipeline& pipeline,
                                                    storage::Transaction& txn,
                                                    storage::CommitOptions options);

// The keys `index` holds for a record changing from `before` to `after` (either empty when there
// is none): what to remove and what to add, nothing for keys both have. Sets `*multikey` when
// `after` makes the index multikey, and gives `*multikey_paths` (when not null) the wildcard
// multikey paths it makes (DocumentKeys::multikey_paths).
StatusWith<storage::IndexChanges> IndexChangesFor(
    const catalog::IndexInfo& index, bson::DocumentView before, bson::DocumentView after,
    bool* multikey, std::vector<std::string>* multikey_paths = nullptr);

// As IndexChangesFor, appending to `*changes` (a commit gathers every index's there).
Status AppendIndexChanges(const catalog::IndexInfo& index, bson::DocumentView before,
                          bson::DocumentView after, bool* multikey,
                          std::vector<std::string>* multikey_paths, storage::IndexChanges* changes);

// Marks `index` multikey when a record's keys make it so (`keys`), with a wildcard index's
// multikey paths; durably, and only what is not marked yet.
Status MarkMultikey(catalog::Catalog& catalog, const catalog::IndexInfo& index, bool multikey,
                    const std::vector<std::string>& multikey_paths);

}  // namespace quarry::exec
