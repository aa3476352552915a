// What the plans an operation ran did, summed over their stages as they work: keys and
// records examined (also by the candidate plans of a trial, as mongod counts them), whether a
// SORT stage sorted in memory, the write conflicts its writes met, and the plan it ran. The
// profiler, the slow-operation log and serverStatus' metrics.operation report it. An operation
// runs on one thread, so each thread keeps its own: no locks and no atomics on the per-key path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "exec/stages/plan_stage.h"

namespace quarry::exec {

struct OperationWork {
  std::int64_t keys_examined = 0;
  std::int64_t docs_examined = 0;
  std::int64_t write_conflicts = 0;
  bool has_sort_stage = false;  // mongod's hasSortStage, counted as metrics.operation.scanAndOrder
  std::string plan_summary;     // of the last plan run: "IXSCAN { a: 1 }", "COLLSCAN"
};

// This thread's. Whoever runs an operation resets it before and reads it after.
OperationWork& ThisThreadWork();

// mongod's planSummary of `root`: its leaves, an index scan with its key pattern, comma
// separated ("IXSCAN { a: 1 }, IXSCAN { b: 1 }"); a trial's chosen plan stands for the trial.
std::string PlanSummary(const PlanStage& root);

// A scan's part of a plan summary: "IXSCAN { a: 1, b: -1 }".
void AppendScanSummary(std::string_view stage, const bson::DocumentView& key_pattern,
                       std::string* out);

// Notes that `root` ran: its summary becomes the operation's.
void NotePlanRan(const PlanStage& root);

}  // namespace quarry::exec
