// The access paths the planner builds: where a plan's documents come from, before sort, skip,
// limit and projection. Private to the planner's files.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "exec/collection.h"
#include "exec/exec_context.h"
#include "exec/index_choice.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"

namespace quarry::exec {

struct Access {
  std::unique_ptr<PlanStage> root;
  bool provides_sort = false;
};

// FETCH over an IXSCAN of `access`, keeping the records that match `filter`.
std::unique_ptr<PlanStage> IndexPlanOf(const ExecContext& ctx, const Collection& collection,
                                       IndexAccess access,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details);

// FETCH over an OR of one scan per $or branch: FETCH checks the whole filter, since a branch's
// scan also reads records that match that branch only.
std::unique_ptr<PlanStage> OrPlanOf(const ExecContext& ctx, const Collection& collection,
                                    std::vector<IndexAccess> branches,
                                    const std::optional<query::Matcher>& filter,
                                    bool want_match_details);

}  // namespace quarry::exec
