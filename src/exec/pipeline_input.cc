#include "exec/pipeline_input.h"

#include "exec/plan_stream.h"
#include "exec/planner.h"

namespace quarry::exec {

std::unique_ptr<query::DocumentStream> OpenPipelineInput(const ExecContext& ctx,
                                                         const Collection& collection,
                                                         query::Pipeline* pipeline) {
  if (!pipeline->stages().empty()) {
    if (const query::Matcher* filter = pipeline->stages().front()->pushdown_filter()) {
      std::unique_ptr<PlanStage> plan = PlanFilter(ctx, collection, *filter);
      pipeline->RemoveFirstStages(1);
      return StreamOfPlan(std::move(plan));
    }
  }
  return StreamOfCollection(ctx, collection);
}

std::unique_ptr<query::DocumentStream> StreamOfCollection(const ExecContext& ctx,
                                                          const Collection& collection) {
  static const query::Matcher* const kEverything = [] {
    auto* everything = new query::Matcher(query::Matcher::Parse(bson::DocumentView()).value());
    return everything;
  }();
  return StreamOfPlan(PlanFilter(ctx, collection, *kEverything));
}

}  // namespace quarry::exec
