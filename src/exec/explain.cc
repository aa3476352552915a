#include "exec/explain.h"

#include <chrono>

#include "exec/explain_count.h"
#include "exec/multi_plan.h"
#include "exec/plan_executor.h"

namespace quarry::exec {
namespace {

// The plan, under the command's own stage when it has one.
void AppendPlan(const PlanStage& root, const ExplainTarget& target, bool with_stats,
                std::int64_t returned, bson::DocumentBuilder* b) {
  if (target.command_stage.empty()) {
    root.Explain(b, with_stats);
    return;
  }
  b->AppendString("stage", target.command_stage);
  if (with_stats) AppendCount(b, "nReturned", returned);
  b->OpenDocument("inputStage");
  root.Explain(b, with_stats);
  b->Close();
}

}  // namespace

ExaminedTotals TotalExamined(const PlanStage& root) {
  ExaminedTotals totals{root.stats().keys_examined, root.stats().docs_examined};
  for (const auto& child : root.children()) {
    const ExaminedTotals below = TotalExamined(*child);
    totals.keys += below.keys;
    totals.docs += below.docs;
  }
  return totals;
}

StatusWith<ExplainVerbosity> ParseExplainVerbosity(bson::ValueView verbosity) {
  if (!verbosity.exists()) return ExplainVerbosity::kAllPlansExecution;
  if (verbosity.type() == bson::Type::kString) {
    if (verbosity.String() == "queryPlanner") return ExplainVerbosity::kQueryPlanner;
    if (verbosity.String() == "executionStats") return ExplainVerbosity::kExecutionStats;
    if (verbosity.String() == "allPlansExecution") return ExplainVerbosity::kAllPlansExecution;
  }
  return Status(ErrorCode::kBadValue,
                "verbosity string must be one of {'queryPlanner', 'executionStats', "
                "'allPlansExecution'}, got " +
                    verbosity.ToJson());
}

Status AppendExplain(PlanStage& root, const ExplainTarget& target, ExplainVerbosity verbosity,
                     bson::DocumentBuilder* out) {
  std::int64_t returned = 0;
  std::int64_t millis = 0;
  if (verbosity != ExplainVerbosity::kQueryPlanner) {
    const auto start = std::chrono::steady_clock::now();
    QUARRY_RETURN_IF_ERROR(ForEachResult(root, [&](bson::DocumentView, const query::MatchDetails&) {
      ++returned;
      return target.stop_after == 0 || returned < target.stop_after;
    }));
    millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start)
                 .count();
  }
  AppendQueryPlanner(root, target, out);
  if (verbosity != ExplainVerbosity::kQueryPlanner) {
    AppendExecutionStats(root, target, verbosity, returned, millis, out);
  }
  return Status::OK();
}

void AppendQueryPlanner(const PlanStage& root, const ExplainTarget& target,
                        bson::DocumentBuilder* out) {
  out->OpenDocument("queryPlanner");
  out->AppendString("namespace", target.ns);
  out->AppendBool("indexFilterSet", false);
  out->AppendDocument("parsedQuery", target.parsed_query);
  const ChosenPlanStage* chosen = FindChosenPlan(root);
  if (chosen != nullptr && !chosen->choice().query_hash.empty()) {
    out->AppendString("queryHash", chosen->choice().query_hash);
    out->AppendString("planCacheKey", chosen->choice().plan_cache_key);
  }
  if (!target.collation.empty()) out->AppendDocument("collation", target.collation);
  if (target.optimized_pipeline) out->AppendBool("optimizedPipeline", true);
  out->AppendBool("maxIndexedOrSolutionsReached", false);
  out->AppendBool("maxIndexedAndSolutionsReached", false);
  out->AppendBool("maxScansToExplodeReached", false);
  out->OpenDocument("winningPlan");
  AppendPlan(root, target, false, 0, out);
  out->Close();
  out->OpenArray("rejectedPlans");
  if (chosen != nullptr) {
    for (std::size_t plan_idx = 0; plan_idx < chosen->choice().rejected_plans.size(); ++plan_idx) {
      // Under the command's stage, as the winning plan is.
      const bson::Document& plan = chosen->choice().rejected_plans[plan_idx];
      out->OpenDocument(std::to_string(plan_idx));
      if (target.command_stage.empty()) {
        for (const bson::Element& e : plan.view()) out->Append(e.key, e.value);
      } else {
        out->AppendString("stage", target.command_stage);
        out->AppendDocument("inputStage", plan.view());
      }
      out->Close();
    }
  }
  out->Close();
  out->Close();
}

void AppendExecutionStats(const PlanStage& root, const ExplainTarget& target,
                          ExplainVerbosity verbosity, std::int64_t returned, std::int64_t millis,
                          bson::DocumentBuilder* out) {
  const ExaminedTotals totals = TotalExamined(root);
  out->OpenDocument("executionStats");
  out->AppendBool("executionSuccess", true);
  AppendCount(out, "nReturned", returned);
  AppendCount(out, "executionTimeMillis", millis);
  AppendCount(out, "totalKeysExamined", totals.keys);
  AppendCount(out, "totalDocsExamined", totals.docs);
  out->OpenDocument("executionStages");
  AppendPlan(root, target, true, returned, out);
  out->Close();
  if (verbosity == ExplainVerbosity::kAllPlansExecution) {
    // Each candidate's trial, as the trial left it; none when one plan was the only choice.
    out->OpenArray("allPlansExecution");
    if (const ChosenPlanStage* chosen = FindChosenPlan(root)) {
      const std::vector<bson::Document>& trials = chosen->choice().trial_executions;
      for (std::size_t plan_idx = 0; plan_idx < trials.size(); ++plan_idx) {
        out->AppendDocument(std::to_string(plan_idx), trials[plan_idx].view());
      }
    }
    out->Close();
  }
  out->Close();
}

}  // namespace quarry::exec
