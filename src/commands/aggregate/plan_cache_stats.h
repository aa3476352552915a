// $planCacheStats: one document per plan cache entry of a collection.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::commands {

// Checks the stage's argument (a document, else FailedToParse; Quarry knows no options, so it
// must be empty) and returns mongod's documents {version, queryHash, planCacheKey, isActive,
// works, timeOfCreation, createdFromQuery: {query, sort, projection}, cachedPlan,
// creationExecStats, candidatePlanScores, indexFilterSet, estimatedSizeBytes, host} for
// `db.coll`; none when the collection does not exist.
StatusWith<std::vector<bson::Document>> PlanCacheStatsDocuments(CommandContext& ctx,
                                                                const std::string& db,
                                                                const std::string& coll,
                                                                bson::ValueView argument);

}  // namespace quarry::commands
