// distinct's plan when an index serves it: PROJECTION_COVERED over DISTINCT_SCAN
// (stages/distinct_scan.h), as mongod plans distinct on an index's first key field.
#pragma once

#include <memory>
#include <string_view>

#include "base/status.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "exec/planner.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"

namespace quarry::exec {

// The DISTINCT_SCAN plan of distinct(`field`, `filter`) on `collection`, whose results hold
// each distinct value of `field` once (the first of those that encode alike, such as 1 and
// 1.0), or nullptr when no index serves it. An index serves when it is ready and visible (or
// hinted), its first key field is `field`, it is not multikey, partial, or of another
// collation than the filter's, and it holds every path the filter reads; of several, the one
// with the fewest key fields. A $natural or _id hint gets no DISTINCT_SCAN.
StatusWith<std::unique_ptr<PlanStage>> PlanDistinctScan(const ExecContext& ctx,
                                                        const Collection& collection,
                                                        const query::Matcher& filter,
                                                        std::string_view field,
                                                        const ResolvedHint& hint);

}  // namespace quarry::exec
