#include "exec/planner.h"

#include "bson/compare.h"
#include "exec/id_point.h"
#include "exec/stages/collection_scan.h"
#include "exec/stages/id_hack.h"
#include "exec/stages/limit_skip.h"
#include "exec/stages/projection_stage.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

Status NegativeField(std::string_view field, std::int64_t value) {
  return Status(static_cast<ErrorCode>(51024), "BSON field '" + std::string(field) +
                                                   "' value must be >= 0, actual value '" +
                                                   std::to_string(value) + "'");
}

Status NoSuchIndex() {
  return Status(ErrorCode::kBadValue, "hint provided does not correspond to an existing index");
}

// What a hint asks of the plan. Hints to an existing full index leave the plan as it is: until
// secondary indexes are built, every index holds every document, so a scan returns what the
// index would (in another order, which only a sort fixes).
struct HintChoice {
  int natural = 0;  // 1 or -1 for {$natural: ...}
};

StatusWith<HintChoice> ResolveHint(const Collection& collection, bson::ValueView hint) {
  HintChoice choice;
  if (!hint.exists()) return choice;
  if (hint.type() == bson::Type::kDocument && hint.Document().empty()) return choice;
  if (hint.type() == bson::Type::kDocument && hint.Document().FirstKey() == "$natural") {
    bson::ValueView direction = hint.Document().Get("$natural");
    if (!direction.IsNumber() || (direction.AsDouble() != 1 && direction.AsDouble() != -1)) {
      return Status(ErrorCode::kBadValue, "$natural hint must be 1 or -1");
    }
    choice.natural = direction.AsDouble() < 0 ? -1 : 1;
    return choice;
  }
  if (hint.type() != bson::Type::kString && hint.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kFailedToParse, "hint must be a string or an object");
  }
  for (const bson::Document& spec : collection.info->indexes) {
    const bool matches = hint.type() == bson::Type::kString
                             ? spec.Get("name").type() == bson::Type::kString &&
                                   spec.Get("name").String() == hint.String()
                             : spec.Get("key").type() == bson::Type::kDocument &&
                                   bson::CompareValues(spec.Get("key"), hint) == 0;
    if (!matches) continue;
    if (spec.Get("hidden").Truthy()) return NoSuchIndex();
    if (spec.Get("sparse").Truthy() || spec.Get("partialFilterExpression").exists()) {
      return Status(ErrorCode::kNotImplemented,
                    "a hint to a sparse or partial index is not supported yet: its results "
                    "would differ from a collection scan's");
    }
    return choice;
  }
  return NoSuchIndex();
}

// IDHACK or COLLSCAN for the filter, in storage order or its reverse.
std::unique_ptr<PlanStage> PlanAccess(const ExecContext& ctx, const Collection& collection,
                                      const std::optional<query::Matcher>& filter,
                                      storage::ScanDirection direction, bool want_match_details) {
  const storage::RecordStore* records = &ctx.engine->records();
  if (filter.has_value()) {
    if (std::optional<bson::ValueView> id = IdPoint(*filter)) {
      return std::make_unique<IdHack>(records, collection.id, storage::EncodeIdKey(*id), filter,
                                      want_match_details);
    }
  }
  CollectionScan::Options options;
  options.collection = collection.id;
  options.direction = direction;
  options.filter = filter;
  options.want_match_details = want_match_details;
  return std::make_unique<CollectionScan>(records, ctx.interrupt, std::move(options));
}

}  // namespace

StatusWith<QuerySpec> QuerySpec::Parse(bson::DocumentView filter, bson::DocumentView let,
                                       bson::DocumentView projection, bson::DocumentView sort,
                                       std::int64_t skip, std::int64_t limit) {
  if (skip < 0) return NegativeField("skip", skip);
  if (limit < 0) return NegativeField("limit", limit);
  QuerySpec spec;
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter, let));
  if (!matcher.MatchesEverything()) spec.filter = std::move(matcher);
  if (!projection.empty()) {
    QUARRY_ASSIGN_OR_RETURN(
        query::Projection parsed,
        query::Projection::Parse(projection, spec.filter ? &*spec.filter : nullptr));
    if (!parsed.is_identity()) spec.projection = std::move(parsed);
  }
  QUARRY_ASSIGN_OR_RETURN(spec.sort, query::SortSpec::Parse(sort));
  spec.skip = skip;
  spec.limit = limit;
  return spec;
}

StatusWith<std::unique_ptr<PlanStage>> PlanQuery(const ExecContext& ctx,
                                                 const Collection& collection, QuerySpec spec) {
  QUARRY_ASSIGN_OR_RETURN(HintChoice hint, ResolveHint(collection, spec.hint));
  const int natural = hint.natural != 0 ? hint.natural : spec.sort.natural();
  const storage::ScanDirection direction =
      natural < 0 ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
  const bool want_details = spec.projection.has_value() && spec.projection->uses_positional();
  std::unique_ptr<PlanStage> root =
      PlanAccess(ctx, collection, spec.filter, direction, want_details);
  if (spec.sort.needs_sort()) {
    // Only the first skip + limit in sort order can be returned.
    std::int64_t keep = 0;
    if (spec.limit > 0 && spec.skip < std::numeric_limits<std::int64_t>::max() - spec.limit) {
      keep = spec.skip + spec.limit;
    }
    root = std::make_unique<SortStage>(std::move(root), std::move(spec.sort), keep,
                                       spec.max_sort_bytes);
  }
  if (spec.skip > 0) root = std::make_unique<SkipStage>(std::move(root), spec.skip);
  if (spec.limit > 0) root = std::make_unique<LimitStage>(std::move(root), spec.limit);
  if (spec.projection.has_value()) {
    root = std::make_unique<ProjectionStage>(std::move(root), std::move(*spec.projection));
  }
  return root;
}

StatusWith<storage::ScanDirection> CheckHint(const Collection& collection, bson::ValueView hint) {
  QUARRY_ASSIGN_OR_RETURN(HintChoice choice, ResolveHint(collection, hint));
  return choice.natural < 0 ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
}

std::unique_ptr<PlanStage> PlanFilter(const ExecContext& ctx, const Collection& collection,
                                      const query::Matcher& filter,
                                      storage::ScanDirection direction) {
  std::optional<query::Matcher> maybe;
  if (!filter.MatchesEverything()) maybe = filter;
  return PlanAccess(ctx, collection, maybe, direction, /*want_match_details=*/true);
}

}  // namespace quarry::exec
