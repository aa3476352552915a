// The planner: how a read of one collection is answered, as a tree of stages. Today a filter
// that pins _id to one value is one point lookup (IDHACK) and anything else is a collection
// scan (COLLSCAN); sort, skip, limit and projection stack on top. Index scans join here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

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
  std::int64_t skip = 0;   // >= 0
  std::int64_t limit = 0;  // > 0 limits; 0 means no limit
  // An index name or key pattern, or {$natural: 1 | -1}; absent: none. Read while planning
  // only.
  bson::ValueView hint;
  std::size_t max_sort_bytes = kMaxBlockingSortBytes;

  // Parses a find's filter (with `let` constants in scope for $expr), projection and sort.
  // `skip` and `limit` must be >= 0 (51024 with mongod's text). Empty views mean none.
  static StatusWith<QuerySpec> Parse(bson::DocumentView filter, bson::DocumentView let,
                                     bson::DocumentView projection, bson::DocumentView sort,
                                     std::int64_t skip, std::int64_t limit);
};

// Plans the read of `collection` that `spec` describes. Fails with BadValue (2) "hint provided
// does not correspond to an existing index" for a hint naming no index of the collection (or
// a hidden one), and with NotImplemented for a hint to a sparse or partial index, whose
// results differ from a scan's until secondary indexes are built.
StatusWith<std::unique_ptr<PlanStage>> PlanQuery(const ExecContext& ctx,
                                                 const Collection& collection, QuerySpec spec);

// The order in which a hint asks for the documents: backward for {$natural: -1}, else
// forward. Fails as PlanQuery does for a hint that names no index of `collection`, or one
// whose results would differ from a scan's. For commands that read through PlanFilter (count,
// distinct, writes, aggregate).
StatusWith<storage::ScanDirection> CheckHint(const Collection& collection, bson::ValueView hint);

// The plan of a write's or a count's filter: every matching document in _id order (or its
// reverse).
std::unique_ptr<PlanStage> PlanFilter(
    const ExecContext& ctx, const Collection& collection, const query::Matcher& filter,
    storage::ScanDirection direction = storage::ScanDirection::kForward);

}  // namespace quarry::exec
