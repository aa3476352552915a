#include <algorithm>
#include <chrono>
#include <deque>
#include <tuple>
#include <utility>
#include <vector>

#include "exec/plan_cache.h"
#include "exec/plan_choice_internal.h"
#include "exec/query_shape.h"
#include "exec/stages/id_hack.h"
#include "storage/engine.h"

namespace quarry::exec {
namespace {

// The query's queryHash and planCacheKey; empty when it is not cached.
std::pair<std::string, std::string> CacheKeysOf(const TrialSetup& setup) {
  const std::string& shape = setup.Shape();
  if (shape.empty()) return {};
  return {ShapeHash(shape), ShapeHash(std::string(setup.kind) + "|" + shape)};
}

// One candidate access: an index scan, an OR of one scan per $or branch, or a SORT_MERGE of
// scans that each give the sort.
struct AccessOption {
  std::string id;
  std::vector<IndexAccess> scans;
  bool is_or = false;
  std::optional<query::SortSpec> merge_sort;
  bool provides_sort = false;
};

std::string ScanId(const IndexAccess& access) {
  std::string id(access.index->name());
  if (access.direction == storage::ScanDirection::kBackward) id += " backward";
  return id;
}

AccessOption IndexOption(IndexAccess access) {
  AccessOption option;
  option.id = ScanId(access);
  option.provides_sort = access.provides_sort;
  option.scans.push_back(std::move(access));
  return option;
}

AccessOption MergeOption(std::vector<IndexAccess> scans, const query::SortSpec& sort) {
  AccessOption option;
  option.id = "SORT_MERGE";
  // Named by its indexes, not by how many values split them, so that a query of the same shape
  // with other values finds its cached choice.
  std::string last;
  for (const IndexAccess& scan : scans) {
    std::string id = ScanId(scan);
    if (id != last) option.id += " " + id;
    last = std::move(id);
  }
  option.scans = std::move(scans);
  option.merge_sort = sort;
  option.provides_sort = true;
  return option;
}

// A SORT_MERGE over the branches of the filter's top-level $or, when each branch's scan gives
// the sort (or splits into scans that do), as mongod merges an indexed $or for a sort.
StatusWith<std::optional<AccessOption>> OrMergeOption(const Collection& collection,
                                                      const query::Matcher& matcher,
                                                      const query::SortSpec& sort) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<std::vector<IndexAccess>> branches,
                          ChooseOrIndexes(*collection.info, matcher, sort));
  if (!branches.has_value()) return std::optional<AccessOption>();
  std::vector<IndexAccess> scans;
  for (const IndexAccess& branch : *branches) {
    std::optional<std::vector<IndexAccess>> sorted = ScansGivingSort(branch, sort);
    if (!sorted.has_value() || scans.size() + sorted->size() > kMaxScansToExplode) {
      return std::optional<AccessOption>();
    }
    for (IndexAccess& scan : *sorted) scans.push_back(std::move(scan));
  }
  return std::optional<AccessOption>(MergeOption(std::move(scans), sort));
}

AccessOption OrOption(std::vector<IndexAccess> branches) {
  AccessOption option;
  option.id = "OR";
  for (const IndexAccess& branch : branches) option.id += " " + std::string(branch.index->name());
  option.is_or = true;
  option.scans = std::move(branches);
  return option;
}

// The candidate accesses of a read with no hint, as PlanQuery's contract lists them.
StatusWith<std::vector<AccessOption>> AccessOptions(const Collection& collection,
                                                    const query::Matcher* matcher,
                                                    const query::SortSpec& sort) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<IndexAccess> indexes,
                          CandidateIndexes(*collection.info, matcher, sort));
  std::vector<AccessOption> options;
  for (IndexAccess& access : indexes) {
    if (!access.bounded) continue;
    // An index whose $in splits into scans that each give the sort is merged, not sorted, as
    // mongod plans it.
    std::optional<std::vector<IndexAccess>> merged;
    if (!access.provides_sort && sort.needs_sort()) merged = ScansGivingSort(access, sort);
    options.push_back(merged.has_value() ? MergeOption(std::move(*merged), sort)
                                         : IndexOption(access));
  }
  if (matcher != nullptr) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<std::vector<IndexAccess>> branches,
                            ChooseOrIndexes(*collection.info, *matcher));
    std::optional<AccessOption> merged;
    if (branches.has_value() && sort.needs_sort()) {
      QUARRY_ASSIGN_OR_RETURN(merged, OrMergeOption(collection, *matcher, sort));
    }
    if (merged.has_value()) {
      options.push_back(std::move(*merged));
    } else if (branches.has_value()) {
      options.push_back(OrOption(std::move(*branches)));
    }
  }
  // An index that only gives the order reads every entry: a candidate when nothing bounded
  // avoids the SORT.
  const bool sorted = std::any_of(options.begin(), options.end(),
                                  [](const AccessOption& option) { return option.provides_sort; });
  if (!sorted) {
    for (IndexAccess& access : indexes) {
      if (!access.bounded && access.provides_sort) options.push_back(IndexOption(access));
    }
  }
  return options;
}

std::unique_ptr<PlanStage> OptionPlanOf(const ExecContext& ctx, const Collection& collection,
                                        const AccessOption& option,
                                        const std::optional<query::Matcher>& filter,
                                        bool want_match_details, const TrialSetup& setup) {
  if (option.is_or) return OrPlanOf(ctx, collection, option.scans, filter, want_match_details);
  if (option.merge_sort.has_value()) {
    return MergePlanOf(ctx, collection, option.scans, *option.merge_sort, filter,
                       want_match_details, setup.cover_paths);
  }
  return IndexPlanOf(ctx, collection, option.scans.front(), filter, want_match_details,
                     setup.cover_paths);
}

// The whole candidate a trial runs: the access, and its SORT when the trial sorts.
CandidatePlan CandidateOf(const ExecContext& ctx, const Collection& collection,
                          const AccessOption& option, const std::optional<query::Matcher>& filter,
                          const TrialSetup& setup, bool want_match_details) {
  std::unique_ptr<PlanStage> root =
      OptionPlanOf(ctx, collection, option, filter, want_match_details, setup);
  if (setup.blocking_sort != nullptr && setup.blocking_sort->needs_sort() &&
      !option.provides_sort) {
    root = std::make_unique<SortStage>(std::move(root), *setup.blocking_sort, setup.sort_keep,
                                       setup.sort_memory);
  }
  return CandidatePlan{option.id, std::move(root)};
}

// Several candidates: the cached choice for the query's shape when there is an active one that
// still does within its work budget, else the winner of a trial, which the cache records.
StatusWith<Access> ChooseAmong(const ExecContext& ctx, const Collection& collection,
                               const std::vector<AccessOption>& options,
                               const std::optional<query::Matcher>& filter, const TrialSetup& setup,
                               bool want_match_details) {
  const bool cached = !setup.Shape().empty() && !ctx.for_explain;
  // Named copies rather than a structured binding, which clang 14's lambdas cannot capture.
  const std::pair<std::string, std::string> keys = CacheKeysOf(setup);
  const std::string& query_hash = keys.first;
  const std::string& plan_cache_key = keys.second;
  auto access_of = [&](std::unique_ptr<ChosenPlanStage> chosen) {
    const AccessOption* winner = nullptr;
    for (const AccessOption& option : options) {
      if (option.id == chosen->choice().winner_id) winner = &option;
    }
    chosen->mutable_choice().query_hash = query_hash;
    chosen->mutable_choice().plan_cache_key = plan_cache_key;
    const bool sorted = setup.blocking_sort != nullptr || winner->provides_sort;
    return Access{std::move(chosen), sorted};
  };
  if (cached) {
    std::optional<CachedChoice> entry = FindCachedPlan(collection, plan_cache_key);
    if (entry.has_value() && entry->active) {
      for (const AccessOption& option : options) {
        if (option.id != entry->plan_id) continue;
        const TrialLimits limits{
            .max_works = kReplanWorksFactor * std::max<std::int64_t>(entry->works, 1),
            .max_results = setup.max_results};
        QUARRY_ASSIGN_OR_RETURN(
            std::unique_ptr<ChosenPlanStage> chosen,
            TryCachedPlan(CandidateOf(ctx, collection, option, filter, setup, want_match_details),
                          limits));
        if (chosen != nullptr) return access_of(std::move(chosen));
      }
      // The data no longer suits the cached plan (or its access no longer applies): replan.
      RemoveCachedPlan(collection, plan_cache_key);
    }
  }
  std::vector<CandidatePlan> candidates;
  for (const AccessOption& option : options) {
    candidates.push_back(CandidateOf(ctx, collection, option, filter, setup, want_match_details));
  }
  const TrialLimits limits{.max_works = TrialWorks(ctx.records().Count(collection.id)),
                           .max_results = setup.max_results};
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<ChosenPlanStage> chosen,
                          ChoosePlan(std::move(candidates), limits));
  if (cached) {
    const PlanChoice& choice = chosen->choice();
    PlanCacheEntry entry;
    entry.query_hash = query_hash;
    entry.plan_cache_key = plan_cache_key;
    entry.plan_id = choice.winner_id;
    entry.works = choice.winner_works;
    entry.created_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    entry.query = filter.has_value() ? bson::Document::Copy(filter->filter()) : bson::Document();
    entry.sort = bson::Document::Copy(setup.sort_spec);
    entry.projection = bson::Document::Copy(setup.projection_spec);
    entry.cached_plan = choice.winning_plan;
    entry.creation_exec_stats = choice.trial_executions;
    entry.candidate_scores = choice.scores;
    RecordPlanChoice(collection, std::move(entry));
  }
  return access_of(std::move(chosen));
}

}  // namespace

StatusWith<Access> ChooseAccess(const ExecContext& ctx, const Collection& collection,
                                const std::optional<query::Matcher>& filter,
                                const query::SortSpec& sort, const TrialSetup& setup,
                                bool want_match_details) {
  const query::Matcher* matcher = filter.has_value() ? &*filter : nullptr;
  QUARRY_ASSIGN_OR_RETURN(std::vector<AccessOption> options,
                          AccessOptions(collection, matcher, sort));
  if (options.empty()) return Access{};
  if (options.size() == 1) {
    return Access{OptionPlanOf(ctx, collection, options.front(), filter, want_match_details, setup),
                  options.front().provides_sort};
  }
  return ChooseAmong(ctx, collection, options, filter, setup, want_match_details);
}

Access WithCacheKeys(const ExecContext& ctx, Access access, const TrialSetup& setup) {
  if (!ctx.for_explain || setup.Shape().empty() || FindChosenPlan(*access.root) != nullptr ||
      dynamic_cast<const IdHack*>(access.root.get()) != nullptr) {
    return access;
  }
  PlanChoice choice;
  std::tie(choice.query_hash, choice.plan_cache_key) = CacheKeysOf(setup);
  access.root = std::make_unique<ChosenPlanStage>(
      std::move(access.root), std::deque<ChosenPlanStage::Buffered>(), false, std::move(choice));
  return access;
}

}  // namespace quarry::exec
