// planCacheClear, and the index filter commands around the plan cache: Quarry has no index
// filters, so planCacheListFilters lists none and planCacheSetFilter is refused.
#include "exec/plan_cache.h"

#include <optional>
#include <string>

#include "bson/builder.h"
#include "collation/collator.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "exec/query_shape.h"
#include "query/match/matcher.h"
#include "query/projection/projection.h"
#include "query/sort/sort.h"

namespace quarry::commands {
namespace {

// The queryHash of the shape planCacheClear names, parsed as a find parses it (a query that
// does not parse fails as find fails).
StatusWith<std::string> QueryHashOf(bson::DocumentView query, bson::DocumentView sort,
                                    bson::DocumentView projection) {
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(query));
  QUARRY_ASSIGN_OR_RETURN(query::SortSpec sort_spec, query::SortSpec::Parse(sort));
  if (!projection.empty()) {
    QUARRY_ASSIGN_OR_RETURN(query::Projection parsed,
                            query::Projection::Parse(projection, &matcher));
    (void)parsed;  // parsed for its errors only: the shape holds the projection as given
  }
  const bson::DocumentView filter =
      matcher.MatchesEverything() ? bson::DocumentView() : matcher.filter();
  return exec::ShapeHash(exec::QueryShape(filter, sort_spec, projection));
}

StatusWith<bson::Document> RunPlanCacheClear(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::DocumentView> query, args.MaybeDocument("query"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView sort, args.OptionalDocument("sort"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView projection, args.OptionalDocument("projection"));
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::DocumentView> collation,
                          args.MaybeDocument("collation"));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  // As mongod: clearing everything is never what a call that names a sort meant.
  if (!query.has_value() &&
      (request.body.Has("sort") || request.body.Has("projection") || collation.has_value())) {
    return Status(ErrorCode::kBadValue, "sort, projection, or collation provided without query");
  }
  // As mongod: a collection that does not exist is cleared before the query is looked at.
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, coll));
  if (!collection.has_value()) return bson::Document();
  std::optional<std::string> query_hash;
  if (query.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(query_hash, QueryHashOf(*query, sort, projection));
  }
  // A query under a non-simple collation is never cached (planner.cc): naming one clears
  // nothing. The simple collation's queries are cached like those that name none.
  if (collation.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(
        collation::CollatorPtr collator,
        collation::Collator::ParseArgument(request.body.Get("collation"), "planCacheClear."));
    if (collator != nullptr) return bson::Document();
  }
  exec::ClearPlanCache(*collection, query_hash);
  return bson::Document();
}

StatusWith<bson::Document> RunPlanCacheListFilters(CommandContext&, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  (void)coll;
  QUARRY_RETURN_IF_ERROR(args.Finish());
  bson::DocumentBuilder b;
  b.OpenArray("filters").Close();
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunPlanCacheClearFilters(CommandContext&, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  (void)coll;
  args.Ignore({"query", "sort", "projection", "collation"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  return bson::Document();  // there are none to clear
}

StatusWith<bson::Document> RunPlanCacheSetFilter(CommandContext&, const Request&) {
  return Status(ErrorCode::kNotImplemented,
                "index filters (planCacheSetFilter) are not supported by Quarry yet; use a hint");
}

}  // namespace

void RegisterPlanCacheCommands(CommandRegistry& registry) {
  registry.Add({.name = "planCacheClear",
                .run = RunPlanCacheClear,
                .auth = OnNamespace({auth::ActionType::kPlanCacheWrite})});
  registry.Add({.name = "planCacheListFilters",
                .run = RunPlanCacheListFilters,
                .auth = OnNamespace({auth::ActionType::kPlanCacheRead})});
  registry.Add({.name = "planCacheClearFilters",
                .run = RunPlanCacheClearFilters,
                .auth = OnNamespace({auth::ActionType::kPlanCacheIndexFilter})});
  registry.Add({.name = "planCacheSetFilter",
                .run = RunPlanCacheSetFilter,
                .auth = OnNamespace({auth::ActionType::kPlanCacheIndexFilter})});
}

}  // namespace quarry::commands
