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

StatusWith<PipelineInputPlan> PlanPipelineInput(const ExecContext& ctx,
                                                const Collection& collection,
                                                const query::Pipeline& pipeline,
                                                const ResolvedHint& hint) {
  PipelineInputPlan input;
  const auto& stages = pipeline.stages();
  const query::Matcher* filter = &Everything();
  if (!stages.empty()) {
    if (const query::Matcher* pushed = stages.front()->pushdown_filter()) {
      filter = pushed;
      input.absorbed_stages = 1;
      input.filter = bson::Document::Copy(pushed->filter());
    }
  }
  // A $sort right after is left out when the plan reads in its order (an index gives it).
  const query::SortSpec* sort = nullptr;
  if (input.absorbed_stages < stages.size() && hint.natural == 0) {
    sort = stages[input.absorbed_stages]->pushdown_sort();
  }
  QUARRY_ASSIGN_OR_RETURN(FilterPlan plan, PlanFilter(ctx, collection, *filter, hint,
                                                      sort != nullptr ? *sort : query::SortSpec()));
  if (sort != nullptr && plan.sorted) ++input.absorbed_stages;
  input.root = std::move(plan.root);
  return input;
}

StatusWith<std::unique_ptr<query::DocumentStream>> OpenPipelineInput(const ExecContext& ctx,
                                                                     const Collection& collection,
                                                                     query::Pipeline* pipeline,
                                                                     const ResolvedHint& hint) {
  QUARRY_ASSIGN_OR_RETURN(PipelineInputPlan input,
                          PlanPipelineInput(ctx, collection, *pipeline, hint));
  pipeline->RemoveFirstStages(input.absorbed_stages);
  return StreamOfPlan(std::move(input.root));
}

StatusWith<std::unique_ptr<query::DocumentStream>> StreamOfCollection(
    const ExecContext& ctx, const Collection& collection) {
  QUARRY_ASSIGN_OR_RETURN(FilterPlan plan, PlanFilter(ctx, collection, Everything()));
  return StreamOfPlan(std::move(plan.root));
}

}  // namespace quarry::exec
