#include "exec/access_plan_internal.h"
#include "exec/stages/fetch.h"
#include "exec/stages/index_scan.h"
#include "exec/stages/or_stage.h"
#include "storage/engine.h"

namespace quarry::exec {
namespace {

std::unique_ptr<PlanStage> IndexScanOf(const ExecContext& ctx, IndexAccess access) {
  const IndexDescriptor& descriptor = access.parsed->descriptor;
  IndexScanOptions options;
  options.index = access.index->id;
  options.parsed = access.parsed;
  options.name = descriptor.name();
  options.key_pattern = bson::Document::Copy(descriptor.key_pattern());
  options.multikey = access.multikey;
  options.unique = descriptor.unique();
  options.sparse = descriptor.sparse();
  options.partial = descriptor.partial_filter() != nullptr;
  options.bounds = std::move(access.bounds);
  options.direction = access.direction;
  return std::make_unique<IndexScan>(&ctx.engine->indexes(), ctx.interrupt, std::move(options));
}

}  // namespace

std::unique_ptr<PlanStage> IndexPlanOf(const ExecContext& ctx, const Collection& collection,
                                       IndexAccess access,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details) {
  return std::make_unique<Fetch>(IndexScanOf(ctx, std::move(access)), &ctx.engine->records(),
                                 collection.id, filter, want_match_details);
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
