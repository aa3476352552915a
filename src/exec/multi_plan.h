// Choosing among candidate plans by running them (mongod's multi-planner): each works in turn,
// one unit at a time, until one has returned all its results or a first batch, or each has
// done its share of work; the best by plan_ranker.h goes on, handing up first the results it
// returned during the trial. A cached plan is run the same way, alone, on a work budget.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "exec/stages/plan_stage.h"

namespace quarry::exec {

// mongod's internalQueryPlanEvaluationMaxResults: a plan that returns this many ends a trial.
inline constexpr std::int64_t kTrialMaxResults = 101;

// The units of work each plan may do in a trial over a collection of `records` records:
// mongod's max(internalQueryPlanEvaluationWorks, internalQueryPlanEvaluationCollFraction x
// records) = max(10000, 0.29 x records).
std::int64_t TrialWorks(std::int64_t records);

// One plan considered.
struct CandidatePlan {
  // Which access it is (its indexes and direction): the same for every query of a shape, so a
  // cached choice finds its candidate again.
  std::string id;
  std::unique_ptr<PlanStage> root;
};

struct TrialLimits {
  std::int64_t max_works = 0;                   // per plan
  std::int64_t max_results = kTrialMaxResults;  // results of one plan that end the trial
};

// What choosing the plan found, for explain and the plan cache.
struct PlanChoice {
  std::string winner_id;
  std::int64_t winner_works = 0;  // the winner's works during the trial
  bool from_cache = false;
  // explain of each losing plan (no statistics), best first.
  std::vector<bson::Document> rejected_plans;
  // explain's allPlansExecution: each plan's trial {nReturned, executionTimeMillisEstimate,
  // totalKeysExamined, totalDocsExamined, executionStages}, the winner first, then the losers
  // best first; empty for a cached plan.
  std::vector<bson::Document> trial_executions;
  std::vector<double> scores;   // the candidates' scores, best first
  bson::Document winning_plan;  // explain of the winner, no statistics; empty from the cache
  std::string query_hash;       // empty: the query is not cached
  std::string plan_cache_key;
};

// The chosen plan: the results its trial returned, then the rest. In explain it is its plan.
class ChosenPlanStage final : public PlanStage {
 public:
  struct Buffered {
    bson::Document doc;
    query::MatchDetails details;
  };
  ChosenPlanStage(std::unique_ptr<PlanStage> plan, std::deque<Buffered> buffered, bool eof,
                  PlanChoice choice);

  std::string_view name() const override { return "MULTI_PLAN"; }
  const PlanChoice& choice() const { return choice_; }
  PlanChoice& mutable_choice() { return choice_; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  bool ExplainsAsChild() const override { return true; }

  std::deque<Buffered> buffered_;
  bool eof_;
  PlanChoice choice_;
};

// Runs `candidates` (at least two) side by side within `limits` and returns the best, scored
// as plan_ranker.h scores. A candidate that fails drops out; when all fail, the first's error
// is returned.
StatusWith<std::unique_ptr<ChosenPlanStage>> ChoosePlan(std::vector<CandidatePlan> candidates,
                                                        const TrialLimits& limits);

// Runs a cached plan alone until it ends or returns `limits.max_results` results: then it goes
// on as the chosen plan. Null when it needs more than `limits.max_works` units for that (mongod
// replans then), or fails.
StatusWith<std::unique_ptr<ChosenPlanStage>> TryCachedPlan(CandidatePlan plan,
                                                           const TrialLimits& limits);

// The ChosenPlanStage in the plan rooted at `root`, or null.
const ChosenPlanStage* FindChosenPlan(const PlanStage& root);

}  // namespace quarry::exec
