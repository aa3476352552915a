// How a trial of candidate plans is judged, as mongod's plan ranker judges it: a plan that
// returned more results per unit of work scores higher, reaching its end is a large bonus, and
// needing no FETCH or no SORT are small tie-breakers.
#pragma once

#include <cstdint>

#include "exec/stages/plan_stage.h"

namespace quarry::exec {

// What the ranker reads of a candidate after its trial.
struct TrialStats {
  std::int64_t works = 0;     // the plan root's units of work
  std::int64_t advanced = 0;  // the results it returned
  bool eof = false;           // it returned all its results
  bool has_fetch = false;
  bool has_sort = false;
};

// 1 + advanced / works + (eof ? 1 : 0) + epsilon for each of no FETCH, no SORT and no index
// intersection (always), where
// epsilon = min(1 / (10 * works), 1e-4), mongod's scoring. A plan with no works scores 1 plus
// its bonuses.
double ScorePlan(const TrialStats& stats);

// The ranker's inputs for the plan rooted at `root`.
TrialStats TrialStatsOf(const PlanStage& root, bool eof);

}  // namespace quarry::exec
