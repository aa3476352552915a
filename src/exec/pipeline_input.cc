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

std::unique_ptr<query::DocumentStream> OpenPipelineInput(const ExecContext& ctx,
                                                         const Collection& collection,
                                                         query::Pipeline* pipeline,
                                                         storage::ScanDirection direction) {
  if (!pipeline->stages().empty()) {
    if (const query::Matcher* filter = pipeline->stages().front()->pushdown_filter()) {
      std::unique_ptr<PlanStage> plan = PlanFilter(ctx, collection, *filter, direction);
      pipeline->RemoveFirstStages(1);
      return StreamOfPlan(std::move(plan));
    }
  }
  return StreamOfPlan(PlanFilter(ctx, collection, Everything(), direction));
}

std::unique_ptr<query::DocumentStream> StreamOfCollection(const ExecContext& ctx,
                                                          const Collection& collection) {
  return StreamOfPlan(PlanFilter(ctx, collection, Everything()));
}

}  // namespace quarry::exec
