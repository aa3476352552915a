#include <algorithm>

#include "exec/access_plan_internal.h"
#include "exec/covered_read.h"
#include "exec/query_shape.h"
#include "exec/stages/fetch.h"
#include "exec/stages/index_scan.h"
#include "exec/stages/or_stage.h"
#include "exec/stages/sort_merge.h"
#include "exec/stages/unique_point.h"
#include "storage/engine.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

IndexScanOptions ScanOptionsOf(IndexAccess access) {
  const IndexDescriptor& descriptor = access.parsed->descriptor;
  IndexScanOptions options;
  options.index = access.index->id;
  options.parsed = access.parsed;
  options.name = descriptor.name();
  options.key_pattern = access.wildcard_key_pattern.has_value()
                            ? std::move(*access.wildcard_key_pattern)
                            : bson::Document::Copy(descriptor.key_pattern());
  options.multikey = access.multikey;
  options.multikey_paths = std::move(access.wildcard_multikey_paths);
  options.dedup = access.wildcard_subpaths;
  options.unique = descriptor.unique();
  options.sparse = descriptor.sparse();
  options.partial = descriptor.partial_filter() != nullptr;
  options.bounds = std::move(access.bounds);
  options.direction = access.direction;
  return options;
}

// A scan that hands up its entries' key values, when they match `filter`, not records.
IndexScanOptions CoveredScanOptionsOf(const ExecContext& ctx, const Collection& collection,
                                      IndexAccess access,
                                      const std::optional<query::Matcher>& filter) {
  IndexScanOptions options = ScanOptionsOf(std::move(access));
  options.covered = true;
  options.filter = filter;
  options.records = &ctx.records();
  options.collection = collection.id;
  return options;
}

std::unique_ptr<PlanStage> IndexScanOf(const ExecContext& ctx, IndexAccess access) {
  return std::make_unique<IndexScan>(&ctx.indexes(), ctx.interrupt,
                                     ScanOptionsOf(std::move(access)));
}

// Where the entries of a scan of `index` hold `sort`'s fields.
MergeKeyLayout MergeKeyLayoutOf(const IndexDescriptor& index, const query::SortSpec& sort) {
  MergeKeyLayout layout;
  const std::vector<IndexField>& fields = index.fields();
  for (const query::SortField& sort_field : sort.fields()) {
    const auto field = std::find_if(fields.begin(), fields.end(), [&](const IndexField& f) {
      return f.path == sort_field.path.dotted();
    });
    // ScansGivingSort's scans hold every sort field.
    const auto position = static_cast<std::size_t>(field - fields.begin());
    layout.sort_fields.push_back({.position = position, .descending = !sort_field.ascending});
    for (std::size_t field_idx = layout.stored_descending.size(); field_idx <= position;
         ++field_idx) {
      layout.stored_descending.push_back(fields[field_idx].descending);
    }
  }
  return layout;
}

bool OneIndex(const std::vector<IndexAccess>& scans) {
  return std::all_of(scans.begin(), scans.end(),
                     [&](const IndexAccess& scan) { return scan.index == scans.front().index; });
}

}  // namespace

std::unique_ptr<PlanStage> IndexPlanOf(const ExecContext& ctx, const Collection& collection,
                                       IndexAccess access,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details, const CoverPaths& cover) {
  if (!cover.has_value() || !IndexCoversPaths(access.parsed->descriptor, access.multikey, *cover)) {
    return std::make_unique<Fetch>(IndexScanOf(ctx, std::move(access)), &ctx.records(),
                                   collection.id, filter, want_match_details);
  }
  return std::make_unique<IndexScan>(
      &ctx.indexes(), ctx.interrupt,
      CoveredScanOptionsOf(ctx, collection, std::move(access), filter));
}

StatusWith<std::unique_ptr<PlanStage>> UniquePointPlanOf(const ExecContext& ctx,
                                                         const Collection& collection,
                                                         const query::Matcher& filter,
                                                         bool want_match_details) {
  std::unique_ptr<PlanStage> none;
  if (filter.collator() != nullptr) return none;
  QUARRY_ASSIGN_OR_RETURN(const catalog::IndexInfo* index,
                          UniqueIndexPinnedBy(*collection.info, filter.filter(), true));
  if (index == nullptr) return none;
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(*index));
  if (!PointKeysAreExact(parsed->descriptor)) return none;
  UniqueIndexPoint::Target target{.index = index->id, .parsed = std::move(parsed), .key = {}};
  for (const IndexField& field : target.parsed->descriptor.fields()) {
    storage::AppendIndexKey(filter.filter().Get(field.path), field.descending, &target.key);
  }
  return std::unique_ptr<PlanStage>(
      std::make_unique<UniqueIndexPoint>(&ctx.indexes(), &ctx.records(), collection.id,
                                         std::move(target), filter, want_match_details));
}

bool ReadsKeysOnly(const PlanStage& plan) {
  if (const auto* scan = dynamic_cast<const IndexScan*>(&plan)) return scan->options().covered;
  if (dynamic_cast<const Fetch*>(&plan) != nullptr || plan.children().empty()) return false;
  return std::all_of(plan.children().begin(), plan.children().end(),
                     [](const auto& child) { return ReadsKeysOnly(*child); });
}

std::unique_ptr<PlanStage> OrPlanOf(const ExecContext& ctx, const Collection& collection,
                                    std::vector<IndexAccess> branches,
                                    const std::optional<query::Matcher>& filter,
                                    bool want_match_details) {
  std::vector<std::unique_ptr<PlanStage>> scans;
  for (IndexAccess& branch : branches) scans.push_back(IndexScanOf(ctx, std::move(branch)));
  return std::make_unique<Fetch>(std::make_unique<OrStage>(std::move(scans)), &ctx.records(),
                                 collection.id, filter, want_match_details);
}

std::unique_ptr<PlanStage> MergePlanOf(const ExecContext& ctx, const Collection& collection,
                                       std::vector<IndexAccess> scans, const query::SortSpec& sort,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details, const CoverPaths& cover) {
  const bool covered =
      cover.has_value() && OneIndex(scans) &&
      IndexCoversPaths(scans.front().parsed->descriptor, scans.front().multikey, *cover);
  const bool backward = scans.front().direction == storage::ScanDirection::kBackward;
  std::vector<std::unique_ptr<PlanStage>> children;
  std::vector<MergeKeyLayout> layouts;
  for (IndexAccess& scan : scans) {
    layouts.push_back(MergeKeyLayoutOf(scan.parsed->descriptor, sort));
    if (covered) {
      children.push_back(std::make_unique<IndexScan>(
          &ctx.indexes(), ctx.interrupt,
          CoveredScanOptionsOf(ctx, collection, std::move(scan), filter)));
    } else {
      children.push_back(IndexScanOf(ctx, std::move(scan)));
    }
  }
  auto merge = std::make_unique<SortMergeStage>(std::move(children), std::move(layouts), backward,
                                                SortDocumentOf(sort), ctx.interrupt);
  if (covered) return merge;
  return std::make_unique<Fetch>(std::move(merge), &ctx.records(), collection.id, filter,
                                 want_match_details);
}

}  // namespace quarry::exec
