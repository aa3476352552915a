// A plan's results as the input of an aggregation pipeline, or of $lookup and $unionWith.
#pragma once

#include <memory>

#include "exec/stages/plan_stage.h"
#include "query/pipeline/pipeline.h"

namespace quarry::exec {

// Reads the plan in chunks of up to 1,000 documents or 4 MB and lets go of its storage
// iterators after each, so none lives while a slow consumer (a client between getMores)
// holds the stream.
std::unique_ptr<query::DocumentStream> StreamOfPlan(std::unique_ptr<PlanStage> root);

}  // namespace quarry::exec
