#include "commands/aggregate/plan_cache_stats.h"

#include "bson/builder.h"
#include "commands/execution.h"
#include "exec/plan_cache.h"

namespace quarry::commands {
namespace {

std::int64_t SizeOf(const exec::PlanCacheEntry& entry) {
  std::size_t bytes = sizeof(entry) + entry.query.size() + entry.sort.size() +
                      entry.projection.size() + entry.cached_plan.size();
  for (const bson::Document& stats : entry.creation_exec_stats) bytes += stats.size();
  return static_cast<std::int64_t>(bytes);
}

}  // namespace

StatusWith<std::vector<bson::Document>> PlanCacheStatsDocuments(CommandContext& ctx,
                                                                const std::string& db,
                                                                const std::string& coll,
                                                                bson::ValueView argument) {
  if (argument.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kFailedToParse, "$planCacheStats value must be an object. Found: " +
                                                 std::string(bson::TypeAlias(argument.type())));
  }
  if (!argument.Document().empty()) {
    return Status(ErrorCode::kFailedToParse, "unrecognized option to $planCacheStats: " +
                                                 std::string(argument.Document().FirstKey()));
  }
  std::vector<bson::Document> docs;
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, db, coll));
  if (!collection.has_value()) return docs;
  const std::string host =
      ctx.service().host_name + ":" + std::to_string(ctx.service().config.port);
  for (const exec::PlanCacheEntry& entry : exec::CachedPlans(*collection)) {
    bson::DocumentBuilder b;
    b.AppendString("version", "1");
    b.AppendString("queryHash", entry.query_hash);
    b.AppendString("planCacheKey", entry.plan_cache_key);
    b.AppendBool("isActive", entry.active);
    b.AppendInt64("works", entry.works);
    b.AppendDate("timeOfCreation", entry.created_millis);
    b.OpenDocument("createdFromQuery")
        .AppendDocument("query", entry.query)
        .AppendDocument("sort", entry.sort)
        .AppendDocument("projection", entry.projection)
        .Close();
    b.AppendDocument("cachedPlan", entry.cached_plan);
    b.OpenArray("creationExecStats");
    for (std::size_t plan_idx = 0; plan_idx < entry.creation_exec_stats.size(); ++plan_idx) {
      b.AppendDocument(std::to_string(plan_idx), entry.creation_exec_stats[plan_idx]);
    }
    b.Close();
    b.OpenArray("candidatePlanScores");
    for (std::size_t plan_idx = 0; plan_idx < entry.candidate_scores.size(); ++plan_idx) {
      b.AppendDouble(std::to_string(plan_idx), entry.candidate_scores[plan_idx]);
    }
    b.Close();
    b.AppendBool("indexFilterSet", false);
    b.AppendInt64("estimatedSizeBytes", SizeOf(entry));
    b.AppendString("host", host);
    docs.push_back(std::move(b).Finish());
  }
  return docs;
}

}  // namespace quarry::commands
