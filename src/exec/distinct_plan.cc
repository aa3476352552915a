#include "exec/distinct_plan.h"

#include <optional>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/string_comparator.h"
#include "exec/covered_read.h"
#include "exec/index_catalog.h"
#include "exec/index_choice.h"
#include "exec/stages/distinct_scan.h"
#include "exec/stages/projection_stage.h"
#include "storage/engine.h"

namespace quarry::exec {
namespace {

StatusWith<bool> Serves(const catalog::IndexInfo& index, const query::Matcher& filter,
                        std::string_view field, const std::vector<std::string>& filter_paths) {
  if (index.is_id_index() || !index.ready || index.runtime->multikey.load()) return false;
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(index));
  const IndexDescriptor& descriptor = parsed->descriptor;
  return descriptor.fields().front().path == field && descriptor.partial_filter() == nullptr &&
         bson::SameCollation(descriptor.collator(), filter.collator()) &&
         IndexCoversPaths(descriptor, /*multikey=*/false, filter_paths);
}

}  // namespace

StatusWith<std::unique_ptr<PlanStage>> PlanDistinctScan(const ExecContext& ctx,
                                                        const Collection& collection,
                                                        const query::Matcher& filter,
                                                        std::string_view field,
                                                        const ResolvedHint& hint) {
  if (hint.natural != 0 || hint.id_index || filter.text_search() != nullptr) {
    return std::unique_ptr<PlanStage>();
  }
  std::optional<std::vector<std::string>> filter_paths = FilterPaths(filter.filter());
  if (!filter_paths.has_value()) return std::unique_ptr<PlanStage>();
  const catalog::IndexInfo* chosen = nullptr;
  std::size_t chosen_fields = 0;
  for (const catalog::IndexInfo& index : collection.info->indexes) {
    if (hint.index != nullptr ? &index != hint.index : index.spec.Get("hidden").Truthy()) {
      continue;
    }
    QUARRY_ASSIGN_OR_RETURN(bool serves, Serves(index, filter, field, *filter_paths));
    const std::size_t fields = index.key().CountElements();
    if (serves && (chosen == nullptr || fields < chosen_fields)) {
      chosen = &index;
      chosen_fields = fields;
    }
  }
  if (chosen == nullptr) return std::unique_ptr<PlanStage>();

  const query::Matcher* bounding = filter.MatchesEverything() ? nullptr : &filter;
  QUARRY_ASSIGN_OR_RETURN(IndexAccess access,
                          HintedIndexAccess(*chosen, bounding, query::SortSpec()));
  DistinctScanOptions options;
  options.scan.index = chosen->id;
  options.scan.name = access.parsed->descriptor.name();
  options.scan.key_pattern = bson::Document::Copy(access.parsed->descriptor.key_pattern());
  options.scan.unique = access.parsed->descriptor.unique();
  options.scan.sparse = access.parsed->descriptor.sparse();
  options.scan.parsed = access.parsed;
  options.scan.bounds = std::move(access.bounds);
  if (bounding != nullptr) options.scan.filter = filter;
  options.scan.records = &ctx.records();
  options.scan.collection = collection.id;
  options.field = query::FieldPath::FromDotted(field);
  auto scan = std::make_unique<DistinctScan>(&ctx.indexes(), ctx.interrupt, std::move(options));

  bson::DocumentBuilder projection;
  projection.AppendInt32(field, 1).AppendInt32("_id", 0);
  QUARRY_ASSIGN_OR_RETURN(query::Projection parsed,
                          query::Projection::Parse(std::move(projection).Finish()));
  return std::unique_ptr<PlanStage>(
      std::make_unique<ProjectionStage>(std::move(scan), std::move(parsed), /*covered=*/true));
}

}  // namespace quarry::exec
