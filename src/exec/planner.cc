#include "exec/planner.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "bson/compare.h"
#include "exec/access_plan_internal.h"
#include "exec/covered_read.h"
#include "exec/id_bounds.h"
#include "exec/id_point.h"
#include "exec/index_choice.h"
#include "exec/min_max_bounds.h"
#include "exec/plan_choice_internal.h"
#include "exec/query_shape.h"
#include "exec/stages/collection_scan.h"
#include "exec/stages/id_hack.h"
#include "exec/stages/index_scan.h"
#include "exec/stages/limit_skip.h"
#include "exec/stages/natural_scan.h"
#include "exec/stages/projection_stage.h"
#include "exec/stages/return_key.h"
#include "exec/stages/show_record_id.h"
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

std::unique_ptr<PlanStage> NaturalScanOf(const ExecContext& ctx, const Collection& collection,
                                         const std::optional<query::Matcher>& filter,
                                         storage::ScanDirection direction, bool want_match_details,
                                         bool tailable) {
  NaturalScan::Options options;
  options.collection = collection.id;
  options.natural_order_index = collection.info->natural_order_index;
  options.direction = direction;
  options.filter = filter;
  options.want_match_details = want_match_details;
  options.tailable = tailable;
  return std::make_unique<NaturalScan>(&ctx.indexes(), &ctx.records(), ctx.interrupt,
                                       std::move(options));
}

std::unique_ptr<PlanStage> ScanOf(const ExecContext& ctx, const Collection& collection,
                                  const std::optional<query::Matcher>& filter,
                                  storage::ScanDirection direction, bool want_match_details) {
  if (collection.info->is_capped()) {
    return NaturalScanOf(ctx, collection, filter, direction, want_match_details, false);
  }
  CollectionScan::Options options;
  options.collection = collection.id;
  options.direction = direction;
  options.filter = filter;
  options.want_match_details = want_match_details;
  return std::make_unique<CollectionScan>(&ctx.records(), ctx.interrupt, std::move(options));
}

const catalog::IndexInfo* IdIndexOf(const Collection& collection) {
  const auto id_index =
      std::find_if(collection.info->indexes.begin(), collection.info->indexes.end(),
                   [](const catalog::IndexInfo& index) { return index.is_id_index(); });
  return id_index == collection.info->indexes.end() ? nullptr : &*id_index;
}

// The _id index's descriptor, which record keys are encoded by; null when it has a collation
// (records keep the simple order of _id, not the collation's).
StatusWith<std::shared_ptr<const ParsedIndex>> SimpleIdIndex(const Collection& collection) {
  const catalog::IndexInfo* id_index = IdIndexOf(collection);
  if (id_index == nullptr) return std::shared_ptr<const ParsedIndex>();
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(*id_index));
  if (parsed->descriptor.collator() != nullptr) return std::shared_ptr<const ParsedIndex>();
  return parsed;
}

bool SortsById(const query::SortSpec& sort) {
  return sort.fields().size() == 1 && sort.fields().front().path.dotted() == "_id" &&
         sort.collator() == nullptr;
}

// Records are clustered by _id, so their own order serves as the _id index: the filter's _id
// bounds (of its conjuncts, or of every branch of its $or) limit the scan to their ranges, and a
// sort on _id alone is the scan's direction. nullopt when neither applies (nor under a
// collation, which orders strings otherwise).
StatusWith<std::optional<Access>> ClusteredIdAccess(const ExecContext& ctx,
                                                    const Collection& collection,
                                                    const std::optional<query::Matcher>& filter,
                                                    const query::SortSpec& sort,
                                                    bool want_match_details) {
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> id_index, SimpleIdIndex(collection));
  if (id_index == nullptr) return std::optional<Access>();
  std::optional<IndexBounds> bounds;
  if (filter.has_value() && filter->collator() == nullptr) {
    bounds = IdBoundsFor(id_index->descriptor, *filter);
  }
  const bool sorted = SortsById(sort);
  if (!bounds.has_value() && !sorted) return std::optional<Access>();
  CollectionScan::Options options;
  options.collection = collection.id;
  options.filter = filter;
  options.want_match_details = want_match_details;
  if (sorted && !sort.fields().front().ascending) {
    options.direction = storage::ScanDirection::kBackward;
  }
  if (bounds.has_value()) {
    options.reads_nothing = bounds->intervals.empty();
    for (KeyInterval& interval : bounds->intervals) {
      options.id_ranges.push_back({std::move(interval.start), std::move(interval.end)});
    }
    options.id_bounds = bounds->ToExplain();
  }
  return std::optional<Access>(Access{
      std::make_unique<CollectionScan>(&ctx.records(), ctx.interrupt, std::move(options)), sorted});
}

StatusWith<Access> PlanAccess(const ExecContext& ctx, const Collection& collection,
                              const std::optional<query::Matcher>& filter,
                              const query::SortSpec& sort, const ResolvedHint& hint,
                              bool want_match_details, const TrialSetup& setup) {
  const query::Matcher* matcher = filter.has_value() ? &*filter : nullptr;
  if (matcher != nullptr && matcher->text_search() != nullptr) {
    const bool hinted = hint.index != nullptr || hint.id_index || hint.natural != 0;
    return TextAccess(ctx, collection, *matcher, sort, hinted);
  }
  if (hint.index != nullptr) {
    QUARRY_ASSIGN_OR_RETURN(IndexAccess access, HintedIndexAccess(*hint.index, matcher, sort));
    if (!access.provides_sort && sort.needs_sort()) {
      if (std::optional<std::vector<IndexAccess>> scans = ScansGivingSort(access, sort)) {
        return Access{MergePlanOf(ctx, collection, std::move(*scans), sort, filter,
                                  want_match_details, setup.cover_paths),
                      true};
      }
    }
    const bool sorted = access.provides_sort;
    return Access{IndexPlanOf(ctx, collection, std::move(access), filter, want_match_details,
                              setup.cover_paths),
                  sorted};
  }
  if (matcher != nullptr && hint.natural == 0) {
    if (std::optional<bson::ValueView> id = IdPoint(*matcher)) {
      return Access{std::make_unique<IdHack>(&ctx.records(), collection.id,
                                             storage::EncodeIdKey(*id), filter, want_match_details),
                    true};  // one document at most is always in order
    }
  }
  if (matcher != nullptr && hint.natural == 0 && !hint.id_index) {
    if (setup.express && !setup.cover_paths.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<PlanStage> express,
                              UniquePointPlanOf(ctx, collection, *matcher, want_match_details));
      // One document at most is always in order.
      if (express != nullptr) return Access{std::move(express), true};
    }
    QUARRY_ASSIGN_OR_RETURN(std::optional<IndexAccess> point,
                            UniquePointAccess(*collection.info, *matcher));
    if (point.has_value()) {
      return Access{IndexPlanOf(ctx, collection, std::move(*point), filter, want_match_details,
                                setup.cover_paths),
                    true};  // one document at most is always in order
    }
  }
  if (hint.natural == 0 && !hint.id_index) {
    QUARRY_ASSIGN_OR_RETURN(Access chosen,
                            ChooseAccess(ctx, collection, filter, sort, setup, want_match_details));
    if (chosen.root != nullptr) return chosen;
  }
  if (hint.natural == 0) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<Access> by_id,
                            ClusteredIdAccess(ctx, collection, filter, sort, want_match_details));
    if (by_id.has_value()) return std::move(*by_id);
  }
  const storage::ScanDirection direction =
      hint.natural < 0 ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
  return Access{ScanOf(ctx, collection, filter, direction, want_match_details), false};
}

// Whether plans for this filter and sort may be cached. Under a collation the candidates depend
// on it, which the shape leaves out: such queries are planned every time.
bool Cacheable(const std::optional<query::Matcher>& filter, const query::SortSpec& sort) {
  // A $text search has one plan, TEXT_MATCH.
  if (filter.has_value() && filter->text_search() != nullptr) return false;
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

// find's min and max with the _id index hinted: the records between them, read in _id order
// as mongod reads a clustered collection's (a bounded COLLSCAN).
StatusWith<Access> IdRangeAccess(const ExecContext& ctx, const Collection& collection,
                                 const QuerySpec& spec, bool want_match_details) {
  const catalog::IndexInfo* id_index = IdIndexOf(collection);
  if (id_index == nullptr) return NoSuchIndex();
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(*id_index));
  if (parsed->descriptor.collator() != nullptr) {
    // Records are kept in the simple order of their _id, not in the collation's.
    return Status(ErrorCode::kNotImplemented,
                  "min and max with the _id index of a collection with a collation are not "
                  "supported by Quarry yet");
  }
  QUARRY_ASSIGN_OR_RETURN(IndexBounds bounds, MinMaxBounds(parsed->descriptor, spec.min, spec.max));
  CollectionScan::Options options;
  options.collection = collection.id;
  options.filter = spec.filter;
  options.want_match_details = want_match_details;
  options.id_ranges.push_back(
      {std::move(bounds.intervals.front().start), std::move(bounds.intervals.front().end)});
  bson::DocumentBuilder id_range;
  if (!spec.min.empty()) id_range.Append("min", spec.min.begin()->value);
  if (!spec.max.empty()) id_range.Append("max", spec.max.begin()->value);
  options.id_range = std::move(id_range).Finish();
  return Access{std::make_unique<CollectionScan>(&ctx.records(), ctx.interrupt, std::move(options)),
                false};
}

// find's min and max: the hinted index's keys between them, in place of bounds from the filter.
StatusWith<Access> MinMaxAccess(const ExecContext& ctx, const Collection& collection,
                                const QuerySpec& spec, const ResolvedHint& hint,
                                bool want_match_details, const CoverPaths& cover) {
  if (hint.id_index) return IdRangeAccess(ctx, collection, spec, want_match_details);
  if (hint.index == nullptr) {
    return Status(static_cast<ErrorCode>(51173),
                  "When using min()/max() a hint of which index to use must be provided");
  }
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(*hint.index));
  QUARRY_ASSIGN_OR_RETURN(IndexBounds bounds, MinMaxBounds(parsed->descriptor, spec.min, spec.max));
  QUARRY_ASSIGN_OR_RETURN(IndexAccess access,
                          BoundedIndexAccess(*hint.index, std::move(bounds), spec.sort));
  const bool sorted = access.provides_sort;
  return Access{
      IndexPlanOf(ctx, collection, std::move(access), spec.filter, want_match_details, cover),
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
  QuerySpec spec;
  QUARRY_RETURN_IF_ERROR(
      ParseInto(filter, let, projection, sort, skip, limit, std::move(collator), &spec));
  return spec;
}

Status QuerySpec::ParseInto(bson::DocumentView filter, bson::DocumentView let,
                            bson::DocumentView projection, bson::DocumentView sort,
                            std::int64_t skip, std::int64_t limit,
                            std::shared_ptr<const bson::StringComparator> collator,
                            QuerySpec* out) {
  if (skip < 0) return NegativeField("skip", skip);
  if (limit < 0) return NegativeField("limit", limit);
  QuerySpec& spec = *out;
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter, let, collator));
  if (!matcher.MatchesEverything()) spec.filter = std::move(matcher);
  if (!projection.empty()) {
    QUARRY_ASSIGN_OR_RETURN(
        query::Projection parsed,
        query::Projection::Parse(projection, spec.filter ? &*spec.filter : nullptr));
    if (!parsed.is_identity()) {
      spec.projection = std::move(parsed);
      spec.projection_paths = InclusionPaths(projection);
    }
  }
  QUARRY_ASSIGN_OR_RETURN(spec.sort, query::SortSpec::Parse(sort, std::move(collator)));
  if (spec.sort.sorts_by_text_score()) {
    // A find with $text runs as an aggregate, whose documents carry their scores; the commands
    // that plan here have none.
    if (spec.filter.has_value() && spec.filter->text_search() != nullptr) {
      return Status(ErrorCode::kBadValue,
                    "sorting by {$meta: \"textScore\"} is not supported by Quarry in this "
                    "command yet");
    }
    return Status(static_cast<ErrorCode>(40218),
                  "query requires text score metadata, but it is not available");
  }
  spec.sort_spec = bson::Document::Copy(sort);
  spec.projection_spec = bson::Document::Copy(projection);
  spec.skip = skip;
  spec.limit = limit;
  return Status::OK();
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
  CoverPaths cover;
  // A covered plan's results hold no _id of their own to show as the record id.
  if (!spec.return_key && !spec.show_record_id) {
    cover = CoveredReadPaths(spec.projection_paths,
                             spec.filter.has_value() ? spec.filter->filter() : bson::DocumentView(),
                             spec.sort);
  }
  Access access;
  const bool text = spec.filter.has_value() && spec.filter->text_search() != nullptr;
  if (text && spec.tailable) {
    return Status(ErrorCode::kBadValue, "text and tailable cursor not allowed in same query");
  }
  if (text && (!spec.min.empty() || !spec.max.empty())) {
    return Status(ErrorCode::kBadValue, "text and hint not allowed in same query");
  }
  if (spec.tailable) {
    // mongod's tailable cursors read capped collections in natural order, whatever the filter.
    if (!collection.info->is_capped()) {
      return Status(ErrorCode::kBadValue, "error processing query: ns=" + collection.ns +
                                              " tailable cursor requested on non capped "
                                              "collection");
    }
    if (spec.sort.needs_sort() || spec.sort.natural() < 0) {
      return Status(ErrorCode::kBadValue,
                    "cannot use tailable option with a sort other than {$natural: 1}");
    }
    access = Access{NaturalScanOf(ctx, collection, spec.filter, storage::ScanDirection::kForward,
                                  want_details, true),
                    true};
  } else if (!spec.min.empty() || !spec.max.empty()) {
    QUARRY_ASSIGN_OR_RETURN(access, MinMaxAccess(ctx, collection, spec, hint, want_details, cover));
  } else {
    TrialSetup setup;
    setup.cover_paths = cover;
    setup.express = !ctx.for_explain && !spec.return_key;
    setup.blocking_sort = &spec.sort;
    setup.sort_keep = keep;
    setup.sort_memory = spec.sort_memory;
    // A plan that returns all a limited query can return has done enough to be judged.
    if (keep > 0) setup.max_results = std::min(kTrialMaxResults, keep);
    if (Cacheable(spec.filter, spec.sort) && !spec.return_key) {
      setup.make_shape = [&spec] {
        return QueryShape(spec.filter ? spec.filter->filter() : bson::DocumentView(), spec.sort,
                          spec.projection_spec.view());
      };
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
    root =
        std::make_unique<SortStage>(std::move(root), std::move(spec.sort), keep, spec.sort_memory);
  }
  if (spec.skip > 0) root = std::make_unique<SkipStage>(std::move(root), spec.skip);
  if (spec.limit > 0) root = std::make_unique<LimitStage>(std::move(root), spec.limit);
  if (spec.return_key) {
    std::vector<const IndexScan*> scans;
    CollectIndexScans(*root, &scans);
    const bool by_id = ReadsById(*root, hint);
    root = std::make_unique<ReturnKeyStage>(std::move(root), std::move(scans), by_id,
                                            spec.show_record_id);
  } else if (spec.projection.has_value()) {
    const bool covered = ReadsKeysOnly(*root);
    root = std::make_unique<ProjectionStage>(std::move(root), std::move(*spec.projection), covered,
                                             spec.show_record_id);
  } else if (spec.show_record_id) {
    root = std::make_unique<ShowRecordIdStage>(std::move(root));
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
    setup.make_shape = [&maybe, &filter, &sort] {
      return QueryShape(maybe ? filter.filter() : bson::DocumentView(), sort, bson::DocumentView());
    };
    setup.kind = "filter";
    setup.sort_spec = sort_spec.view();
  }
  QUARRY_ASSIGN_OR_RETURN(Access access, PlanAccess(ctx, collection, maybe, sort, hint,
                                                    /*want_match_details=*/true, setup));
  access = WithCacheKeys(ctx, std::move(access), setup);
  return FilterPlan{std::move(access.root), access.provides_sort};
}

}  // namespace quarry::exec
