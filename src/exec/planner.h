// The planner: how a read of one collection is answered, as a tree of stages: a point lookup by
// _id (IDHACK), an index scan (or an OR of several) with FETCH, or a collection scan (COLLSCAN),
// with sort, skip, limit and projection on top.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "exec/stages/plan_stage.h"
#include "exec/stages/sort_stage.h"
#include "query/match/matcher.h"
#include "query/projection/projection.h"
#include "query/sort/sort.h"
#include "storage/record_store.h"

namespace quarry::exec {

// A read as the planner receives it: parsed, not yet planned.
struct QuerySpec {
  std::optional<query::Matcher> filter;  // none: every document
  query::SortSpec sort;
  std::optional<query::Projection> projection;
  // The paths of a plain inclusion projection (covered_read.h), which an index's key values
  // may answer without the records; nullopt for other projections and for none.
  std::optional<std::vector<std::string>> projection_paths;
  // The sort and projection as given, for the plan cache's entries (empty: none).
  bson::Document sort_spec;
  bson::Document projection_spec;
  std::int64_t skip = 0;   // >= 0
  std::int64_t limit = 0;  // > 0 limits; 0 means no limit
  // An index name or key pattern, or {$natural: 1 | -1}; absent: none. Read while planning
  // only.
  bson::ValueView hint;
  // find's min and max: a range of the hinted index's keys (min_max_bounds.h); empty: none.
  // Read while planning only.
  bson::DocumentView min;
  bson::DocumentView max;
  // find's returnKey: each result is the index key that led to it (stages/return_key.h), in
  // place of the document and of any projection.
  bool return_key = false;
  // find's showRecordId: each result, after any projection or returnKey, ends with the
  // record's id as "$recordId" (stages/show_record_id.h).
  bool show_record_id = false;
  // SORT's memory limit, and with find's allowDiskUse where it spills past it.
  SortMemory sort_memory;
  // find's tailable: a capped collection's records in natural order, the scan going on from its
  // end after each batch (stages/natural_scan.h); any other collection, or another sort, fails
  // with 2 BadValue.
  bool tailable = false;

  // Parses a find's filter (with `let` constants in scope for $expr), projection and sort.
  // `skip` and `limit` must be >= 0 (51024 with mongod's text). Empty views mean none. The
  // filter and the sort compare strings under `collator` (null: simple).
  static StatusWith<QuerySpec> Parse(
      bson::DocumentView filter, bson::DocumentView let, bson::DocumentView projection,
      bson::DocumentView sort, std::int64_t skip, std::int64_t limit,
      std::shared_ptr<const bson::StringComparator> collator = nullptr);
  // As Parse, into `*out`, a default QuerySpec or one with only fields Parse never sets filled
  // in: returning the spec through a StatusWith moved it twice, a point read's cost.
  static Status ParseInto(bson::DocumentView filter, bson::DocumentView let,
                          bson::DocumentView projection, bson::DocumentView sort, std::int64_t skip,
                          std::int64_t limit,
                          std::shared_ptr<const bson::StringComparator> collator, QuerySpec* out);
};

// What a hint asks of a plan.
struct ResolvedHint {
  int natural = 0;        // 1 or -1 for {$natural: ...}: a collection scan in that direction
  bool id_index = false;  // the _id index: the records' own order
  const catalog::IndexInfo* index = nullptr;  // a secondary index, in the Collection's info
};

// Resolves a hint (an index name or key pattern, or {$natural: 1 | -1}; absent or {} for none)
// against `collection`, whose info the result points into. Fails with BadValue (2) "hint
// provided does not correspond to an existing index" for a hint naming no ready, visible index
// of the collection.
StatusWith<ResolvedHint> ResolveHint(const Collection& collection, bson::ValueView hint);

// Plans the read of `collection` that `spec` describes: IDHACK when the filter pins _id; else
// the candidates are an index scan and FETCH for each index that bounds the filter
// (index_choice.h), FETCH over an OR of index scans when an index bounds each branch of a
// top-level $or, and, when none of those gives the sort, each index scan that does; with none, a
// collection scan. For a sort, an index scan whose $in splits into scans that each give it, and
// the OR when its branches' scans do, become FETCH over a SORT_MERGE of those scans
// (ScansGivingSort), as mongod plans them. Several candidates (each with its SORT when it does not
// give the order) are tried side by side and the best goes on (multi_plan.h), or the one the plan
// cache holds for the query's shape (plan_cache.h). Then SORT (unless the plan gives the order),
// SKIP, LIMIT, PROJECTION; a candidate whose one index holds every path the filter, the sort and a
// plain inclusion projection read hands up its entries' key values, not records, under
// PROJECTION_COVERED. A hint, min/max or $natural plans without a trial. Fails as ResolveHint
// does.
StatusWith<std::unique_ptr<PlanStage>> PlanQuery(const ExecContext& ctx,
                                                 const Collection& collection, QuerySpec spec);

// The plan of a write's, a count's or a pipeline's filter: every matching document, in the
// order of the access chosen as PlanQuery chooses it for `sort` (_id order, or its reverse for
// a {$natural: -1} hint, when no index is used), with no SORT in the candidates: the caller
// sorts. `sorted`: the order is `sort`'s.
struct FilterPlan {
  std::unique_ptr<PlanStage> root;
  bool sorted = false;
};
StatusWith<FilterPlan> PlanFilter(const ExecContext& ctx, const Collection& collection,
                                  const query::Matcher& filter, const ResolvedHint& hint = {},
                                  const query::SortSpec& sort = {});

}  // namespace quarry::exec
