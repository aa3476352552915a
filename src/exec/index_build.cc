#include "exec/index_build.h"

#include <algorithm>
#include <string>

#include "base/log.h"
#include "catalog/catalog.h"
#include "exec/index_catalog.h"
#include "exec/index_maintenance.h"
#include "exec/key_values.h"
#include "storage/engine.h"
#include "storage/index_bulk_load.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

// Enough to amortize a commit, and to give the index memtable runs of nearby sorted keys; small
// enough to hold the snapshot briefly.
constexpr std::size_t kRecordsPerBatch = 8000;
constexpr std::size_t kBytesPerBatch = std::size_t{4} << 20;
constexpr std::uint64_t kRecordsPerInterruptCheck = 256;
constexpr std::uint64_t kRecordsPerProgress = 32 * kRecordsPerInterruptCheck;
// mongod's default maxIndexBuildMemoryUsageMegabytes: past it a build goes through commits.
constexpr std::size_t kMaxBulkLoadBytes = std::size_t{200} << 20;

struct Target {
  const catalog::IndexInfo* index;
  std::shared_ptr<const ParsedIndex> parsed;
};

StatusWith<std::vector<Target>> TargetsOf(const catalog::CollectionInfo& info,
                                          const std::vector<storage::IndexId>& ids) {
  std::vector<Target> targets;
  for (const catalog::IndexInfo& index : info.indexes) {
    if (std::find(ids.begin(), ids.end(), index.id) == ids.end() || index.id == 0) continue;
    QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(index));
    targets.push_back({&index, std::move(parsed)});
  }
  return targets;
}

// The keys of `record` for every target; `mark_multikey` records in the catalog that an index
// became multikey (never under the commit lock: that commits).
StatusWith<std::vector<storage::IndexEntry>> KeysOf(const ExecContext& ctx,
                                                    const std::vector<Target>& targets,
                                                    bson::DocumentView record, bool mark_multikey) {
  std::vector<storage::IndexEntry> entries;
  for (const Target& target : targets) {
    const IndexDescriptor& descriptor = target.parsed->descriptor;
    QUARRY_ASSIGN_OR_RETURN(DocumentKeys keys,
                            descriptor.KeysAndMultikeyOf(record, descriptor.unique()));
    if (mark_multikey) {
      QUARRY_RETURN_IF_ERROR(
          MarkMultikey(*ctx.catalog, *target.index, keys.multikey, keys.multikey_paths));
    }
    std::string key_values = KeyValuesOf(descriptor, record, keys);
    for (IndexKey& key : keys.keys) {
      storage::IndexEntry entry;
      entry.index = target.index->id;
      entry.key = std::move(key.encoded);
      entry.unique = target.parsed->unique;
      entry.key_value = std::move(key.values);
      entry.key_values = key_values;
      entries.push_back(std::move(entry));
    }
  }
  return entries;
}

Status CommitBatch(const ExecContext& ctx, storage::WriteUnit unit) {
  if (unit.empty()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(
      storage::CommitResult result,
      ctx.engine->pipeline().Commit(std::move(unit), storage::CommitOptions{.ordered = true}));
  if (!result.errors.empty()) return result.errors.front().status;
  return result.sync_status;
}

// Adds the keys of every record through commits of a few thousand records each: slower than a
// bulk load, but in bounded memory whatever the collection's size.
Status BuildThroughCommits(const ExecContext& ctx, const std::vector<Target>& targets,
                           const storage::CollectionRef& collection,
                           const std::function<void(std::uint64_t)>& progress) {
  storage::CommitPipeline& pipeline = ctx.engine->pipeline();
  std::string resume_after;
  std::uint64_t done = 0;
  while (true) {
    QUARRY_RETURN_IF_ERROR(ctx.CheckForInterrupt());
    storage::WriteUnit unit;
    std::size_t records = 0;
    {
      const std::uint64_t read_point = pipeline.ReadPoint(collection.id);
      std::unique_ptr<storage::RecordCursor> cursor =
          ctx.engine->records().Scan(collection.id, resume_after);
      for (; cursor->Valid() && records < kRecordsPerBatch && unit.bytes() < kBytesPerBatch;
           cursor->Next(), ++records) {
        QUARRY_ASSIGN_OR_RETURN(std::vector<storage::IndexEntry> entries,
                                KeysOf(ctx, targets, cursor->document(), true));
        if (!entries.empty()) {
          unit.AddIndexKeys(collection, cursor->document(), read_point, std::move(entries));
        }
        resume_after.assign(cursor->id_key());
      }
      QUARRY_RETURN_IF_ERROR(cursor->status());
    }
    if (records == 0) return Status::OK();
    QUARRY_RETURN_IF_ERROR(CommitBatch(ctx, std::move(unit)));
    done += records;
    if (progress) progress(done);
  }
}

// Reads every record through one cursor and adds all their keys at once as a table file
// (storage::IndexBulkLoad). False, having added nothing, when the keys outgrow
// kMaxBulkLoadBytes.
StatusWith<bool> BuildByBulkLoad(const ExecContext& ctx, const std::vector<Target>& targets,
                                 const storage::CollectionRef& collection,
                                 const std::function<void(std::uint64_t)>& progress) {
  storage::CommitPipeline& pipeline = ctx.engine->pipeline();
  std::vector<storage::IndexId> ids;
  for (const Target& target : targets) ids.push_back(target.index->id);
  storage::IndexBulkLoad load(collection, std::move(ids), pipeline.ReadPoint(collection.id),
                              kMaxBulkLoadBytes);
  std::uint64_t done = 0;
  {
    std::unique_ptr<storage::RecordCursor> cursor = ctx.engine->records().Scan(collection.id, {});
    for (; cursor->Valid(); cursor->Next()) {
      if (++done % kRecordsPerInterruptCheck == 0) {
        QUARRY_RETURN_IF_ERROR(ctx.CheckForInterrupt());
        if (progress && done % kRecordsPerProgress == 0) progress(done);
      }
      QUARRY_ASSIGN_OR_RETURN(std::vector<storage::IndexEntry> entries,
                              KeysOf(ctx, targets, cursor->document(), true));
      if (!load.Add(cursor->id_key(), std::move(entries))) return false;
    }
    QUARRY_RETURN_IF_ERROR(cursor->status());
  }
  // Under the commit lock: the writers of these records marked any multikey change already.
  auto current = [&](std::string_view id_key) -> StatusWith<std::vector<storage::IndexEntry>> {
    QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> record,
                            ctx.engine->records().FindByIdKey(collection.id, id_key));
    if (!record.has_value()) return std::vector<storage::IndexEntry>();
    return KeysOf(ctx, targets, record->view(), false);
  };
  QUARRY_RETURN_IF_ERROR(pipeline.IngestIndexKeys(std::move(load), current));
  if (progress) progress(done);
  return true;
}

}  // namespace

Status BuildIndexes(const ExecContext& ctx, const catalog::CollectionInfo& info,
                    const std::vector<storage::IndexId>& indexes,
                    const std::function<void(std::uint64_t)>& progress) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<Target> targets, TargetsOf(info, indexes));
  if (targets.empty()) return Status::OK();
  const std::string ns = info.ns();
  const storage::CollectionRef collection{
      .id = info.id, .ns = ns, .uuid = info.uuid.view(), .pre_and_post_images = false};
  storage::CommitPipeline& pipeline = ctx.engine->pipeline();
  pipeline.TrackChanges(info.id);
  struct Untrack {
    storage::CommitPipeline& pipeline;
    storage::CollectionId collection;
    ~Untrack() { pipeline.UntrackChanges(collection); }
  } untrack{pipeline, info.id};
  QUARRY_ASSIGN_OR_RETURN(bool loaded, BuildByBulkLoad(ctx, targets, collection, progress));
  if (loaded) return Status::OK();
  return BuildThroughCommits(ctx, targets, collection, progress);
}

namespace {

bool Unfinished(const catalog::IndexInfo& index) { return !index.ready && !index.is_id_index(); }

// Builds the unfinished indexes of one collection afresh.
Status FinishCollection(const ExecContext& ctx, const catalog::CollectionInfo& stale) {
  std::vector<storage::IndexId> partial;
  std::vector<std::string> names;
  for (const catalog::IndexInfo& index : stale.indexes) {
    if (!Unfinished(index)) continue;
    if (index.id != 0) partial.push_back(index.id);
    names.emplace_back(index.name());
  }
  auto is_unfinished = [&names](const catalog::IndexInfo& index) {
    return std::ranges::find(names, index.name()) != names.end();
  };
  auto renew = [&](catalog::CollectionInfo* info) {
    for (catalog::IndexInfo& index : info->indexes) {
      if (is_unfinished(index)) index.id = 0;  // a new id, clear of the partial keys
    }
    return Status::OK();
  };
  QUARRY_RETURN_IF_ERROR(
      ctx.catalog->ModifyCollection(stale.db, stale.name, renew, {}, {}, partial));
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog->Find(stale.db, stale.name);
  std::vector<storage::IndexId> ids;
  for (const catalog::IndexInfo& index : info->indexes) {
    if (is_unfinished(index)) ids.push_back(index.id);
  }
  Status built = BuildIndexes(ctx, *info, ids);
  if (built.ok()) {
    log::Write(log::Severity::kInfo, "INDEX", 20345, "initandlisten", "Index build: done",
               {{"namespace", info->ns()}, {"indexes", static_cast<std::uint64_t>(ids.size())}});
    auto ready = [&](catalog::CollectionInfo* modified) {
      for (catalog::IndexInfo& index : modified->indexes) {
        if (is_unfinished(index)) index.ready = true;
      }
      return Status::OK();
    };
    return ctx.catalog->ModifyCollection(info->db, info->name, ready, {});
  }
  log::Write(log::Severity::kWarning, "INDEX", 20655, "initandlisten",
             "Index build: failed; the indexes are removed",
             {{"namespace", info->ns()}, {"error", built.ToString()}});
  auto remove = [&](catalog::CollectionInfo* modified) {
    std::erase_if(modified->indexes, is_unfinished);
    return Status::OK();
  };
  return ctx.catalog->ModifyCollection(info->db, info->name, remove, {}, {}, ids);
}

}  // namespace

Status FinishIndexBuilds(const ExecContext& ctx) {
  for (const std::string& db : ctx.catalog->DatabaseNames()) {
    for (const auto& info : ctx.catalog->ListCollections(db)) {
      if (std::ranges::any_of(info->indexes, Unfinished)) {
        QUARRY_RETURN_IF_ERROR(FinishCollection(ctx, *info));
      }
    }
  }
  return Status::OK();
}

}  // namespace quarry::exec
