// Where an aggregation over a collection reads from: the collection's records through a plan.
#pragma once

#include <cstddef>
#include <memory>

#include "base/status.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "exec/planner.h"
#include "exec/stages/plan_stage.h"
#include "query/pipeline/pipeline.h"
#include "storage/record_store.h"

namespace quarry::exec {

// The pipeline's input. A leading $match that needs no pipeline variables becomes the plan's
// filter (an _id point lookup when it pins _id, an index scan when an index bounds it) and
// leaves the pipeline, so documents it rejects are never copied out of storage; a $sort after
// it (or first) leaves too when the plan reads in its order. `hint` as
// PlanFilter takes it.
StatusWith<std::unique_ptr<query::DocumentStream>> OpenPipelineInput(const ExecContext& ctx,
                                                                     const Collection& collection,
                                                                     query::Pipeline* pipeline,
                                                                     const ResolvedHint& hint = {});

// The plan OpenPipelineInput reads through, before it becomes a stream (explain reports it).
struct PipelineInputPlan {
  std::unique_ptr<PlanStage> root;
  std::size_t absorbed_stages = 0;  // leading stages the plan answers in the pipeline's place
  bson::Document filter;            // the absorbed $match's filter; empty when none
};
StatusWith<PipelineInputPlan> PlanPipelineInput(const ExecContext& ctx,
                                                const Collection& collection,
                                                const query::Pipeline& pipeline,
                                                const ResolvedHint& hint = {});

// Every document of `collection`, for $lookup and $unionWith.
StatusWith<std::unique_ptr<query::DocumentStream>> StreamOfCollection(const ExecContext& ctx,
                                                                      const Collection& collection);

}  // namespace quarry::exec
