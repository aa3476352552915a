#include "exec/index_maintenance.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "base/log.h"
#include "bson/compare.h"
#include "exec/capped.h"
#include "exec/collection.h"
#include "exec/index_catalog.h"

namespace quarry::exec {
namespace {

// Keys of `doc` (none when it is empty: no such version of the record), sorted by encoding.
StatusWith<DocumentKeys> KeysOf(const IndexDescriptor& descriptor, bson::DocumentView doc,
                                bool with_values) {
  if (doc.empty()) return DocumentKeys{};
  return descriptor.KeysAndMultikeyOf(doc, with_values);
}

storage::IndexEntry EntryOf(const ParsedIndex& parsed, IndexKey key, std::string key_values = {}) {
  storage::IndexEntry entry;
  entry.index = parsed.descriptor.id();
  entry.key = std::move(key.encoded);
  entry.unique = parsed.unique;
  entry.key_value = std::move(key.values);
  entry.key_values = std::move(key_values);
  return entry;
}

// Whether an update left every field `parsed`'s keys are made from as it was, byte for byte.
bool KeySourcesUnchanged(const ParsedIndex& parsed, bson::DocumentView before,
                         bson::DocumentView after) {
  if (!parsed.key_sources.has_value() || before.empty() || after.empty()) return false;
  return std::ranges::all_of(*parsed.key_sources, [&](const std::string& field) {
    return bson::BinaryEqual(before.Get(field), after.Get(field));
  });
}

// The collections a unit's record changes touch, with the mutations of each.
std::map<storage::CollectionId, std::vector<std::size_t>> RecordChangesByCollection(
    const storage::WriteUnit& unit) {
  std::map<storage::CollectionId, std::vector<std::size_t>> out;
  for (std::size_t k = 0; k < unit.size(); ++k) {
    if (auto change = unit.record_change(k)) out[change->collection].push_back(k);
  }
  return out;
}

// Gives every mutation in `mutations` its keys for the secondary indexes of `info`, and for a
// capped collection its natural-order entries. REQUIRES: the collection's writers lock held, and
// for a capped one its capped lock.
Status AttachKeys(catalog::Catalog& catalog, const catalog::CollectionInfo& info,
                  const std::vector<std::size_t>& mutations, storage::WriteUnit* unit) {
  std::vector<const catalog::IndexInfo*> indexes;
  for (const catalog::IndexInfo& index : info.indexes) {
    // A collated _id index has keys of its own (catalog::Catalog::AssignIndexIds gave it an id).
    if (!index.is_id_index() || index.id != 0) indexes.push_back(&index);
  }
  for (std::size_t k : mutations) {
    const storage::WriteUnit::RecordChange change = *unit->record_change(k);
    storage::IndexChanges all;
    all.added.reserve(indexes.size());
    Status failed = Status::OK();
    for (const catalog::IndexInfo* index : indexes) {
      bool multikey = false;
      std::vector<std::string> multikey_paths;
      failed =
          AppendIndexChanges(*index, change.before, change.after, &multikey, &multikey_paths, &all);
      if (!failed.ok()) break;
      QUARRY_RETURN_IF_ERROR(MarkMultikey(catalog, *index, multikey, multikey_paths));
    }
    if (failed.ok() && info.is_capped()) {
      QUARRY_RETURN_IF_ERROR(
          AppendNaturalOrderChanges(catalog.engine().indexes(), info, change, &all));
    }
    if (!failed.ok()) {
      unit->Fail(k, std::move(failed));
    } else if (!all.removed.empty() || !all.added.empty()) {
      unit->SetIndexChanges(k, std::move(all));
    }
  }
  return Status::OK();
}

}  // namespace

Status MarkMultikey(catalog::Catalog& catalog, const catalog::IndexInfo& index, bool multikey,
                    const std::vector<std::string>& multikey_paths) {
  if (!multikey) return Status::OK();
  catalog::IndexRuntime& runtime = *index.runtime;
  if (multikey_paths.empty()) {
    return runtime.multikey.load() ? Status::OK() : catalog.MarkMultikey(index);
  }
  {
    std::lock_guard lock(runtime.multikey_paths_mu);
    if (std::ranges::includes(runtime.multikey_paths, multikey_paths)) return Status::OK();
  }
  return catalog.MarkMultikeyPaths(index, multikey_paths);
}

Status AppendIndexChanges(const catalog::IndexInfo& index, bson::DocumentView before,
                          bson::DocumentView after, bool* multikey,
                          std::vector<std::string>* multikey_paths,
                          storage::IndexChanges* changes) {
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(index));
  if (KeySourcesUnchanged(*parsed, before, after)) {
    // The same keys as before, so the index is already multikey if they make it so.
    *multikey = false;
    if (multikey_paths != nullptr) multikey_paths->clear();
    return Status::OK();
  }
  const IndexDescriptor& descriptor = parsed->descriptor;
  // A unique index's new keys carry their values, which a DuplicateKey error reports.
  QUARRY_ASSIGN_OR_RETURN(DocumentKeys old_keys, KeysOf(descriptor, before, false));
  QUARRY_ASSIGN_OR_RETURN(DocumentKeys new_keys, KeysOf(descriptor, after, descriptor.unique()));
  *multikey = new_keys.multikey;
  const std::string& old_values = old_keys.key_values;
  std::string new_values = std::move(new_keys.key_values);
  if (multikey_paths != nullptr) *multikey_paths = std::move(new_keys.multikey_paths);
  // Both lists are sorted by encoding: one merge finds what only one side has.
  auto old_it = old_keys.keys.begin();
  auto new_it = new_keys.keys.begin();
  while (old_it != old_keys.keys.end() || new_it != new_keys.keys.end()) {
    if (new_it == new_keys.keys.end() ||
        (old_it != old_keys.keys.end() && old_it->encoded < new_it->encoded)) {
      changes->removed.push_back(EntryOf(*parsed, std::move(*old_it++)));
    } else if (old_it == old_keys.keys.end() || new_it->encoded < old_it->encoded) {
      // Only a document with one key keeps its values, so no later key needs them.
      changes->added.push_back(EntryOf(*parsed, std::move(*new_it++), std::move(new_values)));
    } else if (old_values != new_values) {
      // The same key with other values (1 became 1.0): overwrite the entry's value.
      ++old_it;
      changes->added.push_back(EntryOf(*parsed, std::move(*new_it++), new_values));
    } else {
      ++old_it;
      ++new_it;
    }
  }
  return Status::OK();
}

StatusWith<storage::IndexChanges> IndexChangesFor(const catalog::IndexInfo& index,
                                                  bson::DocumentView before,
                                                  bson::DocumentView after, bool* multikey,
                                                  std::vector<std::string>* multikey_paths) {
  storage::IndexChanges changes;
  QUARRY_RETURN_IF_ERROR(
      AppendIndexChanges(index, before, after, multikey, multikey_paths, &changes));
  return changes;
}

namespace {

// mongod's refusals of a write to a capped collection in a transaction (a delete's differs).
Status CappedInTransaction(const catalog::CollectionInfo& info,
                           const storage::WriteUnit::RecordChange& change) {
  if (change.after.empty()) {
    return Status(
        ErrorCode::kIllegalOperation,
        "Cannot remove from a capped collection in a multi-document transaction: " + info.ns());
  }
  return Status(ErrorCode::kOperationNotSupportedInTransaction,
                "Collection '" + info.ns() +
                    "' is a capped collection. Writes in transactions are not allowed on capped "
                    "collections.");
}

// Commits the deletes of up to 1,000 of `collection`'s oldest records past its limits;
// `*evicted` tells whether there were any.
Status EvictOnce(catalog::Catalog& catalog, storage::CommitPipeline& pipeline,
                 const Collection& collection, bool* evicted) {
  storage::WriteUnit unit;
  QUARRY_ASSIGN_OR_RETURN(std::vector<std::size_t> evictions,
                          AddEvictions(catalog.engine(), collection, &unit));
  *evicted = !evictions.empty();
  if (evictions.empty()) return Status::OK();
  QUARRY_RETURN_IF_ERROR(AttachKeys(catalog, *collection.info, evictions, &unit));
  QUARRY_ASSIGN_OR_RETURN(
      storage::CommitResult result,
      pipeline.Commit(std::move(unit), storage::CommitOptions{.ordered = false}));
  return result.errors.empty() ? Status::OK() : result.errors.front().status;
}

// Deletes the oldest records of the capped collection `info` that its limits no longer allow,
// after a write that may have added some. The write has committed, so a failure here is logged
// rather than reported: the next insert evicts again.
void EvictBeyondLimits(catalog::Catalog& catalog, storage::CommitPipeline& pipeline,
                       std::shared_ptr<const catalog::CollectionInfo> info) {
  const Collection collection = CollectionOf(std::move(info));
  Status status = Status::OK();
  for (bool evicted = true; evicted && status.ok();) {
    status = EvictOnce(catalog, pipeline, collection, &evicted);
  }
  if (!status.ok()) {
    log::Write(log::Severity::kWarning, "STORAGE", 7160000, "CappedEviction",
               "Could not delete the oldest documents of a capped collection",
               {{"namespace", collection.ns}, {"error", status.ToString()}});
  }
}

// Runs `then` with `unit`'s index keys attached, holding the writers lock of each collection it
// touches, so no index spec changes before `then` returns, and the capped lock of each capped
// one, which, given `evict_with`, evicts what the commit's inserts pushed beyond its limits
// before it lets go. Without `evict_with` (a transaction's staging), writes to capped collections
// fail.
template <typename Then>
StatusWith<storage::CommitResult> WithIndexKeys(catalog::Catalog& catalog, storage::WriteUnit unit,
                                                storage::CommitPipeline* evict_with, Then then) {
  std::vector<std::shared_lock<std::shared_mutex>> held;
  std::vector<std::unique_lock<std::mutex>> held_capped;
  std::vector<std::shared_ptr<const catalog::CollectionInfo>> capped;
  for (const auto& [collection, mutations] : RecordChangesByCollection(unit)) {
    std::shared_ptr<const catalog::CollectionInfo> info = catalog.FindById(collection);
    if (info == nullptr) continue;  // dropped: the commit fails these mutations
    held.emplace_back(info->locks->writers);
    // The specs as they are now that no change of them can happen before the commit.
    info = catalog.FindById(collection);
    if (info == nullptr) continue;
    if (info->is_capped()) {
      if (evict_with == nullptr) {
        for (std::size_t k : mutations) {
          unit.Fail(k, CappedInTransaction(*info, *unit.record_change(k)));
        }
        continue;
      }
      held_capped.emplace_back(info->locks->capped);
      // As in mongod, only inserts evict: an update that grows a document does not.
      if (std::ranges::any_of(mutations, [&unit](std::size_t k) {
            return unit.record_change(k)->before.empty();
          })) {
        capped.push_back(info);
      }
    } else if (!(info->has_secondary_indexes() || info->indexes.front().id != 0)) {
      continue;  // no index keeps keys
    }
    QUARRY_RETURN_IF_ERROR(AttachKeys(catalog, *info, mutations, &unit));
  }
  StatusWith<storage::CommitResult> result = then(std::move(unit));
  for (auto& info : capped) EvictBeyondLimits(catalog, *evict_with, std::move(info));
  return result;
}

}  // namespace

StatusWith<storage::CommitResult> CommitMaintainingIndexes(catalog::Catalog& catalog,
                                                           storage::CommitPipeline& pipeline,
                                                           storage::WriteUnit unit,
                                                           const storage::CommitOptions& options) {
  return WithIndexKeys(catalog, std::move(unit), &pipeline, [&](storage::WriteUnit keyed) {
    return pipeline.Commit(std::move(keyed), options);
  });
}

StatusWith<storage::CommitResult> StageMaintainingIndexes(catalog::Catalog& catalog,
                                                          storage::Transaction& txn,
                                                          storage::WriteUnit unit, bool ordered) {
  return WithIndexKeys(catalog, std::move(unit), nullptr, [&](storage::WriteUnit keyed) {
    return txn.Stage(std::move(keyed), ordered);
  });
}

StatusWith<storage::CommitResult> CommitTransaction(catalog::Catalog& catalog,
                                                    storage::CommitPipeline& pipeline,
                                                    storage::Transaction& txn,
                                                    storage::CommitOptions options) {
  options.ordered = true;
  options.transaction = txn.id();
  options.all_or_nothing = true;
  StatusWith<storage::CommitResult> result =
      CommitMaintainingIndexes(catalog, pipeline, txn.TakeWrites(), options);
  // A commit whose durability wait failed has still applied its writes.
  txn.End(result.ok() && result.value().errors.empty());
  return result;
}

}  // namespace quarry::exec
