#include "exec/index_build.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "base/log.h"
#include "catalog/catalog.h"
#include "exec/index_catalog.h"
#include "exec/index_maintenance.h"
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
// Below this, a second thread for a bulk load costs about what it saves.
constexpr std::int64_t kRecordsForTwoThreads = 20000;
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
    const std::string& key_values = keys.key_values;
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

// The records one part of a bulk load reads: those whose id keys are after `after` (from the
// first when empty) and at most `through` (to the last when nullopt).
struct RecordRange {
  std::string after;
  std::optional<std::string> through;
};

// A key near the middle of the keys between `low` and `high`, read as big-endian numbers.
std::string MiddleKey(std::string_view low, std::string_view high) {
  const std::size_t size = std::max(low.size(), high.size());
  auto byte = [](std::string_view key, std::size_t i) -> unsigned {
    return i < key.size() ? static_cast<unsigned char>(key[i]) : 0U;
  };
  std::vector<unsigned> sum(size);
  unsigned carry = 0;
  for (std::size_t i = size; i-- > 0;) {
    const unsigned total = byte(low, i) + byte(high, i) + carry;
    sum[i] = total & 0xffU;
    carry = total >> 8U;
  }
  std::string middle(size, '\0');
  unsigned remainder = carry;
  for (std::size_t i = 0; i < size; ++i) {
    const unsigned value = (remainder << 8U) | sum[i];
    middle[i] = static_cast<char>(value >> 1U);
    remainder = value & 1U;
  }
  return middle;
}

// Splits the id keys between `low` and `high` into 2^depth stretches, appending the keys
// between them (in order) to `bounds`.
void SplitIdKeys(const std::string& low, const std::string& high, int depth,
                 std::vector<std::string>* bounds) {
  if (depth == 0) return;
  std::string middle = MiddleKey(low, high);
  if (middle <= low || middle >= high) return;  // too close to split further
  SplitIdKeys(low, middle, depth - 1, bounds);
  bounds->push_back(middle);
  SplitIdKeys(middle, high, depth - 1, bounds);
}

// The ranges a build's threads take one at a time: one for a small collection or a machine
// with one core; else stretches of equal width of the id keys, many more than the threads, so
// that a thread slowed by other work (or a stretch with more records) leaves more of the rest
// to the other.
std::vector<RecordRange> RangesToRead(const ExecContext& ctx, storage::CollectionId collection) {
  constexpr int kSplitDepth = 4;  // 16 ranges
  if (std::thread::hardware_concurrency() < 2 ||
      ctx.engine->records().Count(collection) < kRecordsForTwoThreads) {
    return {RecordRange{}};
  }
  auto first = ctx.engine->records().Scan(collection, {});
  auto last = ctx.engine->records().Scan(collection, {}, storage::ScanDirection::kBackward);
  if (!first->Valid() || !last->Valid() || first->id_key() >= last->id_key()) {
    return {RecordRange{}};
  }
  std::vector<std::string> bounds;
  SplitIdKeys(std::string(first->id_key()), std::string(last->id_key()), kSplitDepth, &bounds);
  std::vector<RecordRange> ranges;
  std::string after;
  for (std::string& bound : bounds) {
    ranges.push_back({.after = after, .through = bound});
    after = std::move(bound);
  }
  ranges.push_back({.after = std::move(after), .through = std::nullopt});
  return ranges;
}

// What the threads of one bulk load share.
struct SharedRead {
  std::vector<RecordRange> ranges;
  std::atomic<std::size_t> next_range{0};  // the next range a thread takes
  std::atomic<std::size_t> bytes{0};       // of all the threads' loads, up to kMaxBulkLoadBytes
  std::atomic<std::uint64_t> done{0};      // records read
  std::atomic<bool> stop{false};           // a thread failed
};

// Reads the keys of the records in the ranges it takes from `shared` into `load`; false when
// the loads outgrow kMaxBulkLoadBytes or another thread failed. `progress` is told the records
// all threads have read.
StatusWith<bool> ReadKeys(const ExecContext& ctx, const std::vector<Target>& targets,
                          storage::CollectionId collection, SharedRead* shared,
                          storage::IndexBulkLoad* load,
                          const std::function<void(std::uint64_t)>& progress) {
  const std::vector<RecordRange>& ranges = shared->ranges;
  std::uint64_t read = 0;
  for (std::size_t taken = shared->next_range.fetch_add(1); taken < ranges.size();
       taken = shared->next_range.fetch_add(1)) {
    const RecordRange& range = ranges[taken];
    std::unique_ptr<storage::RecordCursor> cursor =
        ctx.engine->records().Scan(collection, range.after);
    for (; cursor->Valid(); cursor->Next()) {
      if (range.through.has_value() && cursor->id_key() > *range.through) break;
      if (++read % kRecordsPerInterruptCheck == 0) {
        if (shared->stop.load(std::memory_order_relaxed)) return false;
        QUARRY_RETURN_IF_ERROR(ctx.CheckForInterrupt());
        const std::uint64_t total =
            shared->done.fetch_add(kRecordsPerInterruptCheck) + kRecordsPerInterruptCheck;
        if (progress && read % kRecordsPerProgress == 0) progress(total);
      }
      QUARRY_ASSIGN_OR_RETURN(std::vector<storage::IndexEntry> entries,
                              KeysOf(ctx, targets, cursor->document(), true));
      const std::size_t before = load->bytes();
      if (!load->Add(cursor->id_key(), std::move(entries))) return false;
      const std::size_t added = load->bytes() - before;
      if (shared->bytes.fetch_add(added) + added > kMaxBulkLoadBytes) return false;
    }
    QUARRY_RETURN_IF_ERROR(cursor->status());
  }
  shared->done.fetch_add(read % kRecordsPerInterruptCheck);
  load->SortKeys();  // on this thread
  return true;
}

// Reads every record and adds all their keys at once as a table file (storage::IndexBulkLoad),
// a large collection's records read by two threads taking ranges of them in turn. False, having
// added nothing, when the keys outgrow kMaxBulkLoadBytes.
StatusWith<bool> BuildByBulkLoad(const ExecContext& ctx, const std::vector<Target>& targets,
                                 const storage::CollectionRef& collection,
                                 const std::function<void(std::uint64_t)>& progress) {
  storage::CommitPipeline& pipeline = ctx.engine->pipeline();
  std::vector<storage::IndexId> ids;
  for (const Target& target : targets) ids.push_back(target.index->id);
  // Every part's cursor opens after the read point, so all of them see what it names.
  const std::uint64_t read_point = pipeline.ReadPoint(collection.id);
  SharedRead shared;
  shared.ranges = RangesToRead(ctx, collection.id);
  const std::size_t threads = shared.ranges.size() > 1 ? 2 : 1;
  // One key per record and index unless a field holds arrays (or an index is sparse or
  // partial). Either part may read most of the records, and the first takes in the other's.
  const auto expected_keys = static_cast<std::size_t>(std::max<std::int64_t>(
                                 0, ctx.engine->records().Count(collection.id))) *
                             targets.size();
  std::vector<storage::IndexBulkLoad> loads;
  for (std::size_t i = 0; i < threads; ++i) {
    loads.emplace_back(collection, ids, read_point, kMaxBulkLoadBytes);
    loads.back().ReserveRows(expected_keys);
  }
  std::vector<StatusWith<bool>> read(threads, true);
  auto read_part = [&](std::size_t i, const std::function<void(std::uint64_t)>& reporting) {
    read[i] = ReadKeys(ctx, targets, collection.id, &shared, &loads[i], reporting);
    if (!read[i].ok() || !read[i].value()) shared.stop.store(true);
  };
  std::optional<std::thread> helper;
  if (threads > 1) {
    try {
      helper.emplace(read_part, 1, nullptr);
    } catch (const std::system_error&) {
      // No thread could be had: the first thread takes every range.
    }
  }
  read_part(0, progress);
  if (helper.has_value()) helper->join();
  for (const StatusWith<bool>& part : read) QUARRY_RETURN_IF_ERROR(part.status());
  for (const StatusWith<bool>& part : read) {
    if (!part.value()) return false;
  }
  for (std::size_t i = 1; i < loads.size(); ++i) loads[0].Absorb(std::move(loads[i]));
  // Under the commit lock: the writers of these records marked any multikey change already.
  auto current = [&](std::string_view id_key) -> StatusWith<std::vector<storage::IndexEntry>> {
    QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> record,
                            ctx.engine->records().FindByIdKey(collection.id, id_key));
    if (!record.has_value()) return std::vector<storage::IndexEntry>();
    return KeysOf(ctx, targets, record->view(), false);
  };
  QUARRY_RETURN_IF_ERROR(pipeline.IngestIndexKeys(std::move(loads[0]), current));
  if (progress) progress(shared.done.load());
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
