#include "exec/plan_cache.h"

#include <map>
#include <mutex>
#include <unordered_map>

namespace quarry::exec {
namespace {

// Entries per collection past which the oldest are dropped: mongod bounds its cache by memory;
// a count bounds ours as well, as entries are small.
constexpr std::size_t kMaxEntriesPerCollection = 5000;

// mongod's internalQueryCacheWorksGrowthCoefficient.
constexpr std::int64_t kWorksGrowth = 2;

// What a collection's entries were made under: its name and each usable index. A change of
// either (createIndexes, dropIndexes, collMod hiding an index, an index build finishing,
// renameCollection) changes the candidates, so the entries are dropped.
std::string ScopeOf(const Collection& collection) {
  std::string scope = collection.ns;
  for (const catalog::IndexInfo& index : collection.info->indexes) {
    scope += '|';
    scope += std::to_string(index.id);
    scope += index.name();
    if (!index.ready) scope += "~building";
    if (index.spec.Get("hidden").Truthy()) scope += "~hidden";
  }
  return scope;
}

struct CollectionCache {
  std::string scope;
  std::map<std::string, PlanCacheEntry> entries;  // by plan cache key
};

class PlanCacheTable {
 public:
  // The collection's cache, emptied first when its scope changed. Keyed by UUID: a dropped
  // and recreated collection starts empty.
  CollectionCache& Of(const Collection& collection) {
    CollectionCache& cache = caches_[collection.uuid];
    std::string scope = ScopeOf(collection);
    if (cache.scope != scope) {
      cache.entries.clear();
      cache.scope = std::move(scope);
    }
    return cache;
  }

  std::mutex mu;

 private:
  std::unordered_map<std::string, CollectionCache> caches_;
};

PlanCacheTable& Table() {
  static PlanCacheTable* table = new PlanCacheTable();
  return *table;
}

void EvictOldest(CollectionCache& cache) {
  auto oldest = cache.entries.begin();
  for (auto it = cache.entries.begin(); it != cache.entries.end(); ++it) {
    if (it->second.created_millis < oldest->second.created_millis) oldest = it;
  }
  cache.entries.erase(oldest);
}

}  // namespace

std::optional<CachedChoice> FindCachedPlan(const Collection& collection,
                                           const std::string& plan_cache_key) {
  PlanCacheTable& table = Table();
  std::lock_guard lock(table.mu);
  CollectionCache& cache = table.Of(collection);
  auto it = cache.entries.find(plan_cache_key);
  if (it == cache.entries.end()) return std::nullopt;
  return CachedChoice{it->second.plan_id, it->second.active, it->second.works};
}

void RecordPlanChoice(const Collection& collection, PlanCacheEntry entry) {
  PlanCacheTable& table = Table();
  std::lock_guard lock(table.mu);
  CollectionCache& cache = table.Of(collection);
  auto it = cache.entries.find(entry.plan_cache_key);
  if (it == cache.entries.end()) {
    if (cache.entries.size() >= kMaxEntriesPerCollection) EvictOldest(cache);
    entry.active = false;
    cache.entries.emplace(entry.plan_cache_key, std::move(entry));
    return;
  }
  PlanCacheEntry& existing = it->second;
  if (existing.active) return;  // a concurrent query activated it first
  if (entry.works <= existing.works) {
    entry.active = true;
    existing = std::move(entry);
  } else {
    existing.works *= kWorksGrowth;
  }
}

void RemoveCachedPlan(const Collection& collection, const std::string& plan_cache_key) {
  PlanCacheTable& table = Table();
  std::lock_guard lock(table.mu);
  table.Of(collection).entries.erase(plan_cache_key);
}

void ClearPlanCache(const Collection& collection, const std::optional<std::string>& query_hash) {
  PlanCacheTable& table = Table();
  std::lock_guard lock(table.mu);
  CollectionCache& cache = table.Of(collection);
  if (!query_hash.has_value()) {
    cache.entries.clear();
    return;
  }
  std::erase_if(cache.entries,
                [&](const auto& keyed) { return keyed.second.query_hash == *query_hash; });
}

std::vector<PlanCacheEntry> CachedPlans(const Collection& collection) {
  PlanCacheTable& table = Table();
  std::lock_guard lock(table.mu);
  std::vector<PlanCacheEntry> entries;
  for (const auto& [key, entry] : table.Of(collection).entries) entries.push_back(entry);
  return entries;
}

}  // namespace quarry::exec
