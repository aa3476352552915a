#include "exec/planner.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "bson/compare.h"
#include "exec/id_point.h"
#include "exec/index_choice.h"
#include "exec/min_max_bounds.h"
#include "exec/multi_plan.h"
#include "exec/plan_cache.h"
#include "exec/query_shape.h"
#include "exec/stages/collection_scan.h"
#include "exec/stages/fetch.h"
#include "exec/stages/id_hack.h"
#include "exec/stages/index_scan.h"
#include "exec/stages/limit_skip.h"
#include "exec/stages/or_stage.h"
#include "exec/stages/projection_stage.h"
#include "exec/stages/return_key.h"
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

bool HintNames(const catalog::IndexInfo& index, bson::ValueView hint) {
  if (hint.type() == bson::Type::kString) return index.name() == hint.String();
  return bson::CompareDocuments(index.key(), hint.Document()) == 0;
}

// The access path: where the plan's documents come from, before sort, skip, limit and
// projection.
struct Access {
  std::unique_ptr<PlanStage> root;
  bool provides_sort = false;
};

std::unique_ptr<PlanStage> ScanOf(const ExecContext& ctx, const Collection& collection,
                                  const std::optional<query::Matcher>& filter,
                                  storage::ScanDirection direction, bool want_match_details) {
  CollectionScan::Options options;
  options.collection = collection.id;
  options.direction = direction;
  options.filter = filter;
  options.want_match_details = want_match_details;
  return std::make_unique<CollectionScan>(&ctx.engine->records(), ctx.interrupt,
                                          std::move(options));
}

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

std::unique_ptr<PlanStage> IndexPlanOf(const ExecContext& ctx, const Collection& collection,
                                       IndexAccess access,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details) {
  return std::make_unique<Fetch>(IndexScanOf(ctx, std::move(access)), &ctx.engine->records(),
                                 collection.id, filter, want_match_details);
}

// FETCH over an OR of one scan per $or branch: FETCH checks the whole filter, since a branch's
// scan also reads records that match that branch only.
std::unique_ptr<PlanStage> OrPlanOf(const ExecContext& ctx, const Collection& collection,
                                    std::vector<IndexAccess> branches,
                                    const std::optional<query::Matcher>& filter,
                                    bool want_match_details) {
  std::vector<std::unique_ptr<PlanStage>> scans;
  for (IndexAccess& branch : branches) scans.push_back(IndexScanOf(ctx, std::move(branch)));
  return std::make_unique<Fetch>(std::make_unique<OrStage>(std::move(scans)),
                                 &ctx.engine->records(), collection.id, filter, want_match_details);
}

// How several candidates are tried, beyond the filter and sort.
struct TrialSetup {
  // PlanQuery's sort: a candidate that does not give this order has its SORT in the trial, as
  // mongod's candidates are whole plans. Null for PlanFilter, whose caller sorts.
  const query::SortSpec* blocking_sort = nullptr;
  std::int64_t sort_keep = 0;
  std::size_t max_sort_bytes = kMaxBlockingSortBytes;
  std::int64_t max_results = kTrialMaxResults;
  // The query's shape (query_shape.h); empty: the query is not cached.
  std::string shape;
  // Which entry point planned it: PlanQuery's and PlanFilter's candidates differ, so their
  // plans are cached apart.
  std::string_view kind;
  bson::DocumentView sort_spec;
  bson::DocumentView projection_spec;
};

// The query's queryHash and planCacheKey; empty when it is not cached.
std::pair<std::string, std::string> CacheKeysOf(const TrialSetup& setup) {
  if (setup.shape.empty()) return {};
  return {ShapeHash(setup.shape), ShapeHash(std::string(setup.kind) + "|" + setup.shape)};
}

// For explain, which shows a query's queryHash and planCacheKey however it was planned: a plan
// chosen without a trial, under a stage that only carries them.
Access WithCacheKeys(const ExecContext& ctx, Access access, const TrialSetup& setup) {
  if (!ctx.for_explain || setup.shape.empty() || FindChosenPlan(*access.root) != nullptr ||
      dynamic_cast<const IdHack*>(access.root.get()) != nullptr) {
    return access;
  }
  PlanChoice choice;
  std::tie(choice.query_hash, choice.plan_cache_key) = CacheKeysOf(setup);
  access.root = std::make_unique<ChosenPlanStage>(
      std::move(access.root), std::deque<ChosenPlanStage::Buffered>(), false, std::move(choice));
  return access;
}

// One candidate access: an index scan, or an OR of one scan per $or branch.
struct AccessOption {
  std::string id;
  std::vector<IndexAccess> scans;
  bool is_or = false;
  bool provides_sort = false;
};

AccessOption IndexOption(IndexAccess access) {
  AccessOption option;
  option.id = std::string(access.index->name());
  if (access.direction == storage::ScanDirection::kBackward) option.id += " backward";
  option.provides_sort = access.provides_sort;
  option.scans.push_back(std::move(access));
  return option;
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
    if (access.bounded) options.push_back(IndexOption(access));
  }
  if (matcher != nullptr) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<std::vector<IndexAccess>> branches,
                            ChooseOrIndexes(*collection.info, *matcher));
    if (branches.has_value()) options.push_back(OrOption(std::move(*branches)));
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
                                        bool want_match_details) {
  if (option.is_or) return OrPlanOf(ctx, collection, option.scans, filter, want_match_details);
  return IndexPlanOf(ctx, collection, option.scans.front(), filter, want_match_details);
}

// The whole candidate a trial runs: the access, and its SORT when the trial sorts.
CandidatePlan CandidateOf(const ExecContext& ctx, const Collection& collection,
                          const AccessOption& option, const std::optional<query::Matcher>& filter,
                          const TrialSetup& setup, bool want_match_details) {
  std::unique_ptr<PlanStage> root =
      OptionPlanOf(ctx, collection, option, filter, want_match_details);
  if (setup.blocking_sort != nullptr && setup.blocking_sort->needs_sort() &&
      !option.provides_sort) {
    root = std::make_unique<SortStage>(std::move(root), *setup.blocking_sort, setup.sort_keep,
                                       setup.max_sort_bytes);
  }
  return CandidatePlan{option.id, std::move(root)};
}

// Several candidates: the cached choice for the query's shape when there is an active one that
// still does within its work budget, else the winner of a trial, which the cache records.
StatusWith<Access> ChooseAmong(const ExecContext& ctx, const Collection& collection,
                               const std::vector<AccessOption>& options,
                               const std::optional<query::Matcher>& filter, const TrialSetup& setup,
                               bool want_match_details) {
  const bool cached = !setup.shape.empty() && !ctx.for_explain;
  const auto [query_hash, plan_cache_key] = CacheKeysOf(setup);
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
  const TrialLimits limits{.max_works = TrialWorks(ctx.engine->records().Count(collection.id)),
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

StatusWith<Access> PlanAccess(const ExecContext& ctx, const Collection& collection,
                              const std::optional<query::Matcher>& filter,
                              const query::SortSpec& sort, const ResolvedHint& hint,
                              bool want_match_details, const TrialSetup& setup) {
  const query::Matcher* matcher = filter.has_value() ? &*filter : nullptr;
  if (hint.index != nullptr) {
    QUARRY_ASSIGN_OR_RETURN(IndexAccess access, HintedIndexAccess(*hint.index, matcher, sort));
    const bool sorted = access.provides_sort;
    return Access{IndexPlanOf(ctx, collection, std::move(access), filter, want_match_details),
                  sorted};
  }
  if (matcher != nullptr && hint.natural == 0) {
    if (std::optional<bson::ValueView> id = IdPoint(*matcher)) {
      return Access{std::make_unique<IdHack>(&ctx.engine->records(), collection.id,
                                             storage::EncodeIdKey(*id), filter, want_match_details),
                    true};  // one document at most is always in order
    }
  }
  if (hint.natural == 0 && !hint.id_index) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<AccessOption> options,
                            AccessOptions(collection, matcher, sort));
    if (options.size() == 1) {
      return Access{OptionPlanOf(ctx, collection, options.front(), filter, want_match_details),
                    options.front().provides_sort};
    }
    if (options.size() > 1) {
      return ChooseAmong(ctx, collection, options, filter, setup, want_match_details);
    }
  }
  const storage::ScanDirection direction =
      hint.natural < 0 ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
  return Access{ScanOf(ctx, collection, filter, direction, want_match_details), false};
}

// Whether plans for this filter and sort may be cached. Under a collation the candidates depend
// on it, which the shape leaves out: such queries are planned every time.
bool Cacheable(const std::optional<query::Matcher>& filter, const query::SortSpec& sort) {
  return (!filter.has_value() || filter->collator() == nullptr) && sort.collator() == nullptr;
}

// The index scans of a plan, in the order it reads them.
void CollectIndexScans(const PlanStage& stage, std::vector<const IndexScan*>* scans) {
  if (const auto* scan = dynamic_cast<const IndexScan*>(&stage)) scans->push_back(scan);
  for (const auto& child : stage.children()) CollectIndexScans(*child, scans);
}

bool ReadsById(const PlanStage& stage, const ResolvedHint& hint) {
  if (hint.id_index || dynamic_cast<const IdHack*>(&stage) != nullptr) return true;
  for (const auto& child : stage.children()) {
    if (ReadsById(*child, hint)) return true;
  }
  return false;
}

// find's min and max: the hinted index's keys between them, in place of bounds from the filter.
StatusWith<Access> MinMaxAccess(const ExecContext& ctx, const Collection& collection,
                                const QuerySpec& spec, const ResolvedHint& hint,
                                bool want_match_details) {
  if (hint.id_index) {
    return Status(ErrorCode::kNotImplemented,
                  "min and max with the _id index are not supported by Quarry yet; hint a "
                  "secondary index");
  }
  if (hint.index == nullptr) {
    return Status(static_cast<ErrorCode>(51173),
                  "When using min()/max() a hint of which index to use must be provided");
  }
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(*hint.index));
  QUARRY_ASSIGN_OR_RETURN(IndexBounds bounds, MinMaxBounds(parsed->descriptor, spec.min, spec.max));
  QUARRY_ASSIGN_OR_RETURN(IndexAccess access,
                          BoundedIndexAccess(*hint.index, std::move(bounds), spec.sort));
  const bool sorted = access.provides_sort;
  return Access{IndexPlanOf(ctx, collection, std::move(access), spec.filter, want_match_details),
                sorted};
}

}  // namespace

StatusWith<ResolvedHint> ResolveHint(const Collection& collection, bson::ValueView hint) {
  ResolvedHint resolved;
  if (!hint.exists()) return resolved;
  if (hint.type() == bson::Type::kDocument && hint.Document().empty()) return resolved;
  if (hint.type() == bson::Type::kDocument && hint.Document().FirstKey() == "$natural") {
    bson::ValueView direction = hint.Document().Get("$natural");
    if (!direction.IsNumber() || (direction.AsDouble() != 1 && direction.AsDouble() != -1)) {
      return Status(ErrorCode::kBadValue, "$natural hint must be 1 or -1");
    }
    resolved.natural = direction.AsDouble() < 0 ? -1 : 1;
    return resolved;
  }
  if (hint.type() != bson::Type::kString && hint.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kFailedToParse, "hint must be a string or an object");
  }
  for (const catalog::IndexInfo& index : collection.info->indexes) {
    if (!HintNames(index, hint)) continue;
    if (!index.ready || index.spec.Get("hidden").Truthy()) return NoSuchIndex();
    if (index.is_id_index()) {
      resolved.id_index = true;  // the records' own order
    } else {
      resolved.index = &index;
    }
    return resolved;
  }
  return NoSuchIndex();
}

StatusWith<QuerySpec> QuerySpec::Parse(bson::DocumentView filter, bson::DocumentView let,
                                       bson::DocumentView projection, bson::DocumentView sort,
                                       std::int64_t skip, std::int64_t limit,
                                       std::shared_ptr<const bson::StringComparator> collator) {
  if (skip < 0) return NegativeField("skip", skip);
  if (limit < 0) return NegativeField("limit", limit);
  QuerySpec spec;
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter, let, collator));
  if (!matcher.MatchesEverything()) spec.filter = std::move(matcher);
  if (!projection.empty()) {
    QUARRY_ASSIGN_OR_RETURN(
        query::Projection parsed,
        query::Projection::Parse(projection, spec.filter ? &*spec.filter : nullptr));
    if (!parsed.is_identity()) spec.projection = std::move(parsed);
  }
  QUARRY_ASSIGN_OR_RETURN(spec.sort, query::SortSpec::Parse(sort, std::move(collator)));
  spec.sort_spec = bson::Document::Copy(sort);
  spec.projection_spec = bson::Document::Copy(projection);
  spec.skip = skip;
  spec.limit = limit;
  return spec;
}

StatusWith<std::unique_ptr<PlanStage>> PlanQuery(const ExecContext& ctx,
                                                 const Collection& collection, QuerySpec spec) {
  QUARRY_ASSIGN_OR_RETURN(ResolvedHint hint, ResolveHint(collection, spec.hint));
  if (hint.natural == 0 && spec.sort.natural() != 0) hint.natural = spec.sort.natural();
  const bool want_details = spec.projection.has_value() && spec.projection->uses_positional();
  // Only the first skip + limit in sort order can be returned.
  std::int64_t keep = 0;
  if (spec.limit > 0 && spec.skip < std::numeric_limits<std::int64_t>::max() - spec.limit) {
    keep = spec.skip + spec.limit;
  }
  Access access;
  if (!spec.min.empty() || !spec.max.empty()) {
    QUARRY_ASSIGN_OR_RETURN(access, MinMaxAccess(ctx, collection, spec, hint, want_details));
  } else {
    TrialSetup setup;
    setup.blocking_sort = &spec.sort;
    setup.sort_keep = keep;
    setup.max_sort_bytes = spec.max_sort_bytes;
    // A plan that returns all a limited query can return has done enough to be judged.
    if (keep > 0) setup.max_results = std::min(kTrialMaxResults, keep);
    if (Cacheable(spec.filter, spec.sort) && !spec.return_key) {
      setup.shape = QueryShape(spec.filter ? spec.filter->filter() : bson::DocumentView(),
                               spec.sort, spec.projection_spec.view());
      setup.kind = "find";
      setup.sort_spec = spec.sort_spec.view();
      setup.projection_spec = spec.projection_spec.view();
    }
    QUARRY_ASSIGN_OR_RETURN(
        access, PlanAccess(ctx, collection, spec.filter, spec.sort, hint, want_details, setup));
    access = WithCacheKeys(ctx, std::move(access), setup);
  }
  std::unique_ptr<PlanStage> root = std::move(access.root);
  if (spec.sort.needs_sort() && !access.provides_sort) {
    root = std::make_unique<SortStage>(std::move(root), std::move(spec.sort), keep,
                                       spec.max_sort_bytes);
  }
  if (spec.skip > 0) root = std::make_unique<SkipStage>(std::move(root), spec.skip);
  if (spec.limit > 0) root = std::make_unique<LimitStage>(std::move(root), spec.limit);
  if (spec.return_key) {
    std::vector<const IndexScan*> scans;
    CollectIndexScans(*root, &scans);
    const bool by_id = ReadsById(*root, hint);
    root = std::make_unique<ReturnKeyStage>(std::move(root), std::move(scans), by_id);
  } else if (spec.projection.has_value()) {
    root = std::make_unique<ProjectionStage>(std::move(root), std::move(*spec.projection));
  }
  return root;
}

StatusWith<FilterPlan> PlanFilter(const ExecContext& ctx, const Collection& collection,
                                  const query::Matcher& filter, const ResolvedHint& hint,
                                  const query::SortSpec& sort) {
  std::optional<query::Matcher> maybe;
  if (!filter.MatchesEverything()) maybe = filter;
  TrialSetup setup;
  bson::Document sort_spec = SortDocumentOf(sort);
  if (Cacheable(maybe, sort)) {
    setup.shape =
        QueryShape(maybe ? filter.filter() : bson::DocumentView(), sort, bson::DocumentView());
    setup.kind = "filter";
    setup.sort_spec = sort_spec.view();
  }
  QUARRY_ASSIGN_OR_RETURN(Access access, PlanAccess(ctx, collection, maybe, sort, hint,
                                                    /*want_match_details=*/true, setup));
  access = WithCacheKeys(ctx, std::move(access), setup);
  return FilterPlan{std::move(access.root), access.provides_sort};
}

}  // namespace quarry::exec
