#include "exec/multi_plan.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "bson/builder.h"
#include "exec/explain.h"
#include "exec/explain_count.h"
#include "exec/plan_ranker.h"
#include "exec/stages/index_scan.h"

namespace quarry::exec {
namespace {

struct Trial {
  explicit Trial(CandidatePlan candidate) : plan(std::move(candidate)) {}

  CandidatePlan plan;
  std::deque<ChosenPlanStage::Buffered> results;
  bool eof = false;
  std::optional<Status> failure;
};

void Buffer(PlanResult& result, std::deque<ChosenPlanStage::Buffered>* results) {
  bson::Document doc =
      result.owned.has_value() ? std::move(*result.owned) : bson::Document::Copy(result.doc);
  results->push_back({std::move(doc), result.details});
}

// Works every live trial once per round until one ends or returns `max_results`, or
// `max_works` rounds are done.
void RunTrials(std::vector<Trial>& trials, const TrialLimits& limits) {
  PlanResult result;
  for (std::int64_t round = 0; round < limits.max_works; ++round) {
    bool done = false;
    bool any_live = false;
    for (Trial& trial : trials) {
      if (trial.failure.has_value()) continue;
      any_live = true;
      StatusWith<WorkState> state = trial.plan.root->Work(&result);
      if (!state.ok()) {
        trial.failure = state.status();
        continue;
      }
      if (state.value() == WorkState::kAdvanced) Buffer(result, &trial.results);
      if (state.value() == WorkState::kEof) trial.eof = true;
      if (trial.eof || static_cast<std::int64_t>(trial.results.size()) >= limits.max_results) {
        done = true;
      }
    }
    if (done || !any_live) return;
  }
}

// Calls `visit` on each index scan of the plan rooted at `stage`.
template <typename Visit>
void ForEachIndexScan(PlanStage& stage, const Visit& visit) {
  if (auto* scan = dynamic_cast<IndexScan*>(&stage)) visit(*scan);
  for (const auto& child : stage.children()) ForEachIndexScan(*child, visit);
}

bson::Document ExplainOf(const PlanStage& root, bool with_stats) {
  bson::DocumentBuilder b;
  root.Explain(&b, with_stats);
  return std::move(b).Finish();
}

// allPlansExecution's entry for one plan, as its trial left it.
bson::Document TrialExecution(const PlanStage& root) {
  const ExaminedTotals totals = TotalExamined(root);
  bson::DocumentBuilder b;
  AppendCount(&b, "nReturned", root.stats().advanced);
  b.AppendInt32("executionTimeMillisEstimate", 0);
  AppendCount(&b, "totalKeysExamined", totals.keys);
  AppendCount(&b, "totalDocsExamined", totals.docs);
  b.AppendDocument("executionStages", ExplainOf(root, true));
  return std::move(b).Finish();
}

}  // namespace

std::int64_t TrialWorks(std::int64_t records) {
  return std::max<std::int64_t>(10000, static_cast<std::int64_t>(0.29 * records));
}

ChosenPlanStage::ChosenPlanStage(std::unique_ptr<PlanStage> plan, std::deque<Buffered> buffered,
                                 bool eof, PlanChoice choice)
    : PlanStage(std::move(plan)),
      buffered_(std::move(buffered)),
      eof_(eof),
      choice_(std::move(choice)) {}

StatusWith<WorkState> ChosenPlanStage::DoWork(PlanResult* out) {
  if (!buffered_.empty()) {
    Buffered& next = buffered_.front();
    out->details = std::move(next.details);
    out->Own(std::move(next.doc));
    buffered_.pop_front();
    return WorkState::kAdvanced;
  }
  // The trial saw the plan's end: working it again would be working an exhausted plan.
  if (eof_) return WorkState::kEof;
  return child().Work(out);
}

StatusWith<std::unique_ptr<ChosenPlanStage>> ChoosePlan(std::vector<CandidatePlan> candidates,
                                                        const TrialLimits& limits) {
  std::vector<Trial> trials;
  trials.reserve(candidates.size());
  for (CandidatePlan& candidate : candidates) {
    ForEachIndexScan(*candidate.root, [](IndexScan& scan) { scan.HoldUseCount(); });
    trials.emplace_back(std::move(candidate));
  }
  RunTrials(trials, limits);

  std::vector<std::size_t> ranked;
  std::vector<double> scores(trials.size(), 0);
  for (std::size_t trial_idx = 0; trial_idx < trials.size(); ++trial_idx) {
    if (trials[trial_idx].failure.has_value()) continue;
    ranked.push_back(trial_idx);
    scores[trial_idx] =
        ScorePlan(TrialStatsOf(*trials[trial_idx].plan.root, trials[trial_idx].eof));
  }
  if (ranked.empty()) return *trials.front().failure;
  // Ties go to the earlier candidate, as mongod's stable ranking does.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });

  Trial& winner = trials[ranked.front()];
  ForEachIndexScan(*winner.plan.root, [](IndexScan& scan) { scan.CountUse(); });
  PlanChoice choice;
  choice.winner_id = winner.plan.id;
  choice.winner_works = winner.plan.root->stats().works;
  choice.winning_plan = ExplainOf(*winner.plan.root, false);
  for (std::size_t trial_idx : ranked) {
    const PlanStage& root = *trials[trial_idx].plan.root;
    choice.scores.push_back(scores[trial_idx]);
    choice.trial_executions.push_back(TrialExecution(root));
    if (trial_idx != ranked.front()) choice.rejected_plans.push_back(ExplainOf(root, false));
  }
  return std::make_unique<ChosenPlanStage>(std::move(winner.plan.root), std::move(winner.results),
                                           winner.eof, std::move(choice));
}

StatusWith<std::unique_ptr<ChosenPlanStage>> TryCachedPlan(CandidatePlan plan,
                                                           const TrialLimits& limits) {
  std::vector<Trial> trials;
  trials.emplace_back(std::move(plan));
  RunTrials(trials, limits);
  Trial& trial = trials.front();
  const bool finished =
      trial.eof || static_cast<std::int64_t>(trial.results.size()) >= limits.max_results;
  if (trial.failure.has_value() || !finished) return std::unique_ptr<ChosenPlanStage>();
  PlanChoice choice;
  choice.winner_id = trial.plan.id;
  choice.winner_works = trial.plan.root->stats().works;
  choice.from_cache = true;
  return std::make_unique<ChosenPlanStage>(std::move(trial.plan.root), std::move(trial.results),
                                           trial.eof, std::move(choice));
}

const ChosenPlanStage* FindChosenPlan(const PlanStage& root) {
  if (const auto* chosen = dynamic_cast<const ChosenPlanStage*>(&root)) return chosen;
  for (const auto& child : root.children()) {
    if (const ChosenPlanStage* found = FindChosenPlan(*child)) return found;
  }
  return nullptr;
}

}  // namespace quarry::exec
