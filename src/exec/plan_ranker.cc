#include "exec/plan_ranker.h"

#include <algorithm>

namespace quarry::exec {
namespace {

bool HasStage(const PlanStage& stage, std::string_view name) {
  if (stage.name() == name) return true;
  return std::any_of(stage.children().begin(), stage.children().end(),
                     [&](const auto& child) { return HasStage(*child, name); });
}

}  // namespace

double ScorePlan(const TrialStats& stats) {
  const double works = static_cast<double>(std::max<std::int64_t>(stats.works, 1));
  const double productivity =
      stats.works > 0 ? static_cast<double>(stats.advanced) / static_cast<double>(stats.works)
                      : 0.0;
  // Small enough never to outweigh one more result per work in any trial we run.
  const double epsilon = std::min(1.0 / (10.0 * works), 1e-4);
  double score = 1.0 + productivity;
  if (!stats.has_fetch) score += epsilon;
  if (!stats.has_sort) score += epsilon;
  score += epsilon;  // mongod's bonus for no index intersection, which Quarry never plans
  if (stats.eof) score += 1.0;
  return score;
}

TrialStats TrialStatsOf(const PlanStage& root, bool eof) {
  return TrialStats{.works = root.stats().works,
                    .advanced = root.stats().advanced,
                    .eof = eof,
                    .has_fetch = HasStage(root, "FETCH"),
                    .has_sort = HasStage(root, "SORT")};
}

}  // namespace quarry::exec
