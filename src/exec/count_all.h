// countDocuments({}) without a scan: drivers send [{$match: {}}, {$group: {_id: 1, n: {$sum:
// 1}}}] (the $match may be absent), and every commit keeps each collection's count exact.
#pragma once

#include <optional>
#include <vector>

#include "bson/value.h"
#include "exec/collection.h"
#include "exec/exec_context.h"

namespace quarry::exec {

// The pipeline's output when `stages` is that pipeline (one document, or none for an empty
// or missing collection, as $group outputs nothing); nullopt when it is any other pipeline.
// Nullopt too inside a transaction, whose view the kept counts do not describe.
std::optional<std::vector<bson::Document>> CountAllPipeline(
    const ExecContext& ctx, const std::optional<Collection>& collection, bson::DocumentView stages);

}  // namespace quarry::exec
