#include <algorithm>

#include "exec/access_plan_internal.h"
#include "exec/covered_read.h"
#include "exec/stages/fetch.h"
#include "exec/stages/index_scan.h"
#include "exec/stages/or_stage.h"
#include "storage/engine.h"

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

std::unique_ptr<PlanStage> IndexScanOf(const ExecContext& ctx, IndexAccess access) {
  return std::make_unique<IndexScan>(&ctx.engine->indexes(), ctx.interrupt,
                                     ScanOptionsOf(std::move(access)));
}

}  // namespace

std::unique_ptr<PlanStage> IndexPlanOf(const ExecContext& ctx, const Collection& collection,
                                       IndexAccess access,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details, const CoverPaths& cover) {
  if (!cover.has_value() || !IndexCoversPaths(access.parsed->descriptor, access.multikey, *cover)) {
    return std::make_unique<Fetch>(IndexScanOf(ctx, std::move(access)), &ctx.engine->records(),
                                   collection.id, filter, want_match_details);
  }
  IndexScanOptions options = ScanOptionsOf(std::move(access));
  options.covered = true;
  options.filter = filter;
  options.records = &ctx.engine->records();
  options.collection = collection.id;
  return std::make_unique<IndexScan>(&ctx.engine->indexes(), ctx.interrupt, std::move(options));
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
  return std::make_unique<Fetch>(std::make_unique<OrStage>(std::move(scans)),
                                 &ctx.engine->records(), collection.id, filter, want_match_details);
}

}  // namespace quarry::exec
