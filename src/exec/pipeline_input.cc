#include "exec/pipeline_input.h"

#include "exec/plan_stream.h"
#include "exec/planner.h"

namespace quarry::exec {

namespace {

const query::Matcher& Everything() {
  static const query::Matcher* const kEverything =
      new query::Matcher(query::Matcher::Parse(bson::DocumentView()).value());
  return *kEverything;
}

}  // namespace

StatusWith<std::unique_ptr<query::DocumentStream>> OpenPipelineInput(const ExecContext& ctx,
                                                                     const Collection& collection,
                                                                     query::Pipeline* pipeline,
                                                                     const ResolvedHint& hint) {
  if (!pipeline->stages().empty()) {
    if (const query::Matcher* filter = pipeline->stages().front()->pushdown_filter()) {
      QUARRY_ASSIGN_OR_RETURN(FilterPlan plan, PlanFilter(ctx, collection, *filter, hint));
      pipeline->RemoveFirstStages(1);
      return StreamOfPlan(std::move(plan.root));
    }
  }
  QUARRY_ASSIGN_OR_RETURN(FilterPlan plan, PlanFilter(ctx, collection, Everything(), hint));
  return StreamOfPlan(std::move(plan.root));
}

StatusWith<std::unique_ptr<query::DocumentStream>> StreamOfCollection(
    const ExecContext& ctx, const Collection& collection) {
  QUARRY_ASSIGN_OR_RETURN(FilterPlan plan, PlanFilter(ctx, collection, Everything()));
  return StreamOfPlan(std::move(plan.root));
}

}  // namespace quarry::exec
