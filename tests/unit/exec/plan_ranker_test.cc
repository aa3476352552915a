// The ranker's scores as mongod computes them, and the trial that runs candidates side by side:
// the productive plan wins, its trial results are handed up once each, and failures drop out.
#include "exec/plan_ranker.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "exec/multi_plan.h"

namespace quarry::exec {
namespace {

TEST(PlanRankerTest, ProductivityDecides) {
  const double busy = ScorePlan({.works = 100, .advanced = 10, .has_fetch = true});
  const double productive = ScorePlan({.works = 100, .advanced = 50, .has_fetch = true});
  EXPECT_GT(productive, busy);
  EXPECT_NEAR(productive - busy, 0.4, 1e-9);
}

TEST(PlanRankerTest, ReachingTheEndIsWorthOneWholePoint) {
  const double open = ScorePlan({.works = 10, .advanced = 5, .has_fetch = true});
  const double ended = ScorePlan({.works = 10, .advanced = 5, .eof = true, .has_fetch = true});
  EXPECT_NEAR(ended - open, 1.0, 1e-9);
}

TEST(PlanRankerTest, NoFetchAndNoSortAreTieBreakersOfAtMostOneTenThousandth) {
  const TrialStats base{.works = 10, .advanced = 5, .has_fetch = true, .has_sort = true};
  TrialStats covered = base;
  covered.has_fetch = false;
  TrialStats unsorted = base;
  unsorted.has_sort = false;
  EXPECT_NEAR(ScorePlan(covered) - ScorePlan(base), 1e-4, 1e-12);
  EXPECT_NEAR(ScorePlan(unsorted) - ScorePlan(base), 1e-4, 1e-12);
  // 1 + 5/10 + the no-intersection bonus.
  EXPECT_NEAR(ScorePlan(base), 1.5 + 1e-4, 1e-12);
}

TEST(PlanRankerTest, TheBonusShrinksForLongTrials) {
  const TrialStats base{.works = 100000, .advanced = 0, .has_fetch = true, .has_sort = true};
  TrialStats covered = base;
  covered.has_fetch = false;
  EXPECT_NEAR(ScorePlan(covered) - ScorePlan(base), 1.0 / 1000000, 1e-12);
}

TEST(PlanRankerTest, APlanThatDidNothingScoresItsBonusesOnly) {
  EXPECT_NEAR(ScorePlan({}), 1.0 + 3 * 1e-4, 1e-12);
}

TEST(PlanRankerTest, TrialWorksIsTenThousandOrTwentyNinePercentOfTheRecords) {
  EXPECT_EQ(TrialWorks(0), 10000);
  EXPECT_EQ(TrialWorks(30000), 10000);
  // 0.29 x 100000 in doubles, truncated as mongod truncates it.
  EXPECT_GE(TrialWorks(100000), 28999);
  EXPECT_LE(TrialWorks(100000), 29000);
}

// Hands up `results` numbered documents, one every `works_per_result` units, then ends; or
// fails at unit `fail_at` (0: never).
class ScriptedStage final : public PlanStage {
 public:
  ScriptedStage(int results, int works_per_result, int fail_at = 0)
      : results_(results), works_per_result_(works_per_result), fail_at_(fail_at) {}
  std::string_view name() const override { return "SCRIPTED"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override {
    ++units_;
    if (fail_at_ > 0 && units_ == fail_at_) return Status(ErrorCode::kInternalError, "broken");
    if (returned_ >= results_) return WorkState::kEof;
    if (units_ % works_per_result_ != 0) return WorkState::kNeedTime;
    bson::DocumentBuilder b;
    b.AppendInt32("n", returned_++);
    out->Own(std::move(b).Finish());
    return WorkState::kAdvanced;
  }

  int results_;
  int works_per_result_;
  int fail_at_;
  int units_ = 0;
  int returned_ = 0;
};

std::vector<int> Drain(PlanStage& root) {
  std::vector<int> numbers;
  PlanResult result;
  while (true) {
    StatusWith<bool> more = root.Next(&result);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !more.value()) return numbers;
    numbers.push_back(result.doc.Get("n").Int32());
  }
}

std::vector<CandidatePlan> Candidates(std::unique_ptr<PlanStage> first,
                                      std::unique_ptr<PlanStage> second) {
  std::vector<CandidatePlan> candidates;
  candidates.push_back({"first", std::move(first)});
  candidates.push_back({"second", std::move(second)});
  return candidates;
}

TEST(MultiPlanTest, TheProductivePlanWinsAndReturnsEachResultOnce) {
  auto chosen = ChoosePlan(
      Candidates(std::make_unique<ScriptedStage>(500, 10), std::make_unique<ScriptedStage>(500, 2)),
      {.max_works = 10000, .max_results = 101});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value()->choice().winner_id, "second");
  EXPECT_EQ(chosen.value()->choice().rejected_plans.size(), 1u);
  ASSERT_EQ(chosen.value()->choice().trial_executions.size(), 2u);
  // The trial stopped when the winner had 101 results: 202 units.
  EXPECT_EQ(chosen.value()->choice().winner_works, 202);
  std::vector<int> numbers = Drain(*chosen.value());
  ASSERT_EQ(numbers.size(), 500u);
  for (int n = 0; n < 500; ++n) EXPECT_EQ(numbers[n], n);
}

TEST(MultiPlanTest, ThePlanThatEndsFirstWins) {
  auto chosen = ChoosePlan(
      Candidates(std::make_unique<ScriptedStage>(1000, 1), std::make_unique<ScriptedStage>(3, 3)),
      {.max_works = 10000, .max_results = 101});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value()->choice().winner_id, "second");
  EXPECT_EQ(Drain(*chosen.value()), (std::vector<int>{0, 1, 2}));
}

TEST(MultiPlanTest, TiesGoToTheEarlierCandidate) {
  auto chosen = ChoosePlan(
      Candidates(std::make_unique<ScriptedStage>(50, 2), std::make_unique<ScriptedStage>(50, 2)),
      {.max_works = 10000, .max_results = 101});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value()->choice().winner_id, "first");
}

TEST(MultiPlanTest, TheWorkBudgetEndsATrialWithNoResults) {
  auto chosen = ChoosePlan(
      Candidates(std::make_unique<ScriptedStage>(5, 100), std::make_unique<ScriptedStage>(5, 1000)),
      {.max_works = 50, .max_results = 101});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value()->choice().winner_works, 50);
  EXPECT_EQ(Drain(*chosen.value()).size(), 5u);
}

TEST(MultiPlanTest, AFailingCandidateDropsOut) {
  auto chosen = ChoosePlan(Candidates(std::make_unique<ScriptedStage>(500, 1, 3),
                                      std::make_unique<ScriptedStage>(20, 5)),
                           {.max_works = 10000, .max_results = 101});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value()->choice().winner_id, "second");
  EXPECT_TRUE(chosen.value()->choice().rejected_plans.empty());
}

TEST(MultiPlanTest, WhenEveryCandidateFailsTheFirstErrorIsReturned) {
  auto chosen = ChoosePlan(Candidates(std::make_unique<ScriptedStage>(500, 1, 2),
                                      std::make_unique<ScriptedStage>(500, 1, 4)),
                           {.max_works = 10000, .max_results = 101});
  EXPECT_EQ(chosen.status().code(), ErrorCode::kInternalError);
}

TEST(MultiPlanTest, ACachedPlanWithinItsBudgetGoesOn) {
  auto chosen = TryCachedPlan({"cached", std::make_unique<ScriptedStage>(10, 2)},
                              {.max_works = 100, .max_results = 101});
  ASSERT_TRUE(chosen.ok());
  ASSERT_NE(chosen.value(), nullptr);
  EXPECT_TRUE(chosen.value()->choice().from_cache);
  EXPECT_EQ(Drain(*chosen.value()).size(), 10u);
}

TEST(MultiPlanTest, ACachedPlanOverItsBudgetIsGivenUp) {
  auto chosen = TryCachedPlan({"cached", std::make_unique<ScriptedStage>(10, 50)},
                              {.max_works = 100, .max_results = 101});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen.value(), nullptr);
}

}  // namespace
}  // namespace quarry::exec
