// Where an aggregation over a collection reads from: the collection's records through a plan.
#pragma once

#include <memory>

#include "base/status.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "query/pipeline/pipeline.h"
#include "storage/record_store.h"

namespace quarry::exec {

// The pipeline's input. A leading $match that needs no pipeline variables becomes the plan's
// filter (an _id point lookup when it pins _id) and leaves the pipeline, so documents it
// rejects are never copied out of storage. Backward (a {$natural: -1} hint): in descending _id
// order.
std::unique_ptr<query::DocumentStream> OpenPipelineInput(
    const ExecContext& ctx, const Collection& collection, query::Pipeline* pipeline,
    storage::ScanDirection direction = storage::ScanDirection::kForward);

// Every document of `collection`, for $lookup and $unionWith.
std::unique_ptr<query::DocumentStream> StreamOfCollection(const ExecContext& ctx,
                                                          const Collection& collection);

}  // namespace quarry::exec
