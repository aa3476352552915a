// explain's report of a plan: queryPlanner (the plan chosen), and for executionStats and
// allPlansExecution what running it did, in mongod's shape.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/builder.h"
#include "bson/value.h"
#include "exec/stages/plan_stage.h"

namespace quarry::exec {

// Keys and records a plan examined, summed over its stages (explain's totalKeysExamined and
// totalDocsExamined).
struct ExaminedTotals {
  std::int64_t keys = 0;
  std::int64_t docs = 0;
};
ExaminedTotals TotalExamined(const PlanStage& root);

enum class ExplainVerbosity { kQueryPlanner, kExecutionStats, kAllPlansExecution };

// "queryPlanner", "executionStats" or "allPlansExecution" (the default when absent); fails with
// BadValue (2) for anything else.
StatusWith<ExplainVerbosity> ParseExplainVerbosity(bson::ValueView verbosity);

struct ExplainTarget {
  std::string ns;
  bson::DocumentView parsed_query;  // the filter as the plan reads it
  // The command's own stage above the plan, as mongod names it ("COUNT", "DELETE", "UPDATE",
  // "DISTINCT"); empty for a find.
  std::string_view command_stage;
  // An aggregation the plan answers whole: mongod marks its queryPlanner optimizedPipeline.
  bool optimized_pipeline = false;
  // The read's collation, fully specified; empty for the simple collation (mongod then shows none).
  bson::DocumentView collation;
  // The command stops at this many results (a findAndModify at its first match), so the run of
  // the plan does too; 0: it runs to the end.
  std::int64_t stop_after = 0;
};

// Appends queryPlanner {namespace, parsedQuery, collation?, winningPlan, rejectedPlans: []} and,
// unless `verbosity` is kQueryPlanner, runs `root` to its end or to `target.stop_after` results
// (writing nothing: it is a read plan)
// and appends executionStats {executionSuccess, nReturned, executionTimeMillis, totalKeysExamined,
// totalDocsExamined, executionStages[, allPlansExecution: []]}.
Status AppendExplain(PlanStage& root, const ExplainTarget& target, ExplainVerbosity verbosity,
                     bson::DocumentBuilder* out);

// The two halves of AppendExplain, for a plan something else runs (an aggregation's input):
// queryPlanner, then, after the run, executionStats with `returned` results in `millis`.
void AppendQueryPlanner(const PlanStage& root, const ExplainTarget& target,
                        bson::DocumentBuilder* out);
void AppendExecutionStats(const PlanStage& root, const ExplainTarget& target,
                          ExplainVerbosity verbosity, std::int64_t returned, std::int64_t millis,
                          bson::DocumentBuilder* out);

}  // namespace quarry::exec
