// The plan cache: per collection, the plan a trial chose for each query shape, so that later
// queries of that shape skip the trial (mongod's classic plan cache). An entry starts inactive
// and is used only once a later trial of its shape needed no more work than it did; a used
// plan that needs ten times its entry's work is planned again. Entries hold for the
// collection's name and index set they were made under: creating, dropping or hiding an index,
// renaming or dropping the collection empties its cache.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bson/value.h"
#include "exec/collection.h"

namespace quarry::exec {

// mongod's internalQueryCacheEvictionRatio: a cached plan that needs more than this many times
// its entry's works is replanned.
inline constexpr std::int64_t kReplanWorksFactor = 10;

struct PlanCacheEntry {
  std::string query_hash;
  std::string plan_cache_key;
  std::string plan_id;  // the chosen candidate (multi_plan.h's CandidatePlan::id)
  bool active = false;
  std::int64_t works = 0;  // what the plan did in its trial
  std::int64_t created_millis = 0;
  bson::Document query;  // the query it was made from
  bson::Document sort;
  bson::Document projection;
  bson::Document cached_plan;                       // explain of the plan, no statistics
  std::vector<bson::Document> creation_exec_stats;  // each candidate's trial, the winner first
  std::vector<double> candidate_scores;             // best first
};

// What planning reads of an entry.
struct CachedChoice {
  std::string plan_id;
  bool active = false;
  std::int64_t works = 0;
};

// The entry for `plan_cache_key` of `collection`, if any (active or not).
std::optional<CachedChoice> FindCachedPlan(const Collection& collection,
                                           const std::string& plan_cache_key);

// Records what a trial chose, as mongod does: a new shape gets an inactive entry; an inactive
// entry is replaced by an active one when the new trial's winner needed no more works than it,
// else its works double (so a later trial can activate it).
void RecordPlanChoice(const Collection& collection, PlanCacheEntry entry);

// Drops the entry for `plan_cache_key` (a cached plan that needed too much work).
void RemoveCachedPlan(const Collection& collection, const std::string& plan_cache_key);

// planCacheClear: every entry of the collection, or those of one query shape.
void ClearPlanCache(const Collection& collection,
                    const std::optional<std::string>& query_hash = std::nullopt);

// $planCacheStats: the collection's entries, by plan cache key.
std::vector<PlanCacheEntry> CachedPlans(const Collection& collection);

}  // namespace quarry::exec
