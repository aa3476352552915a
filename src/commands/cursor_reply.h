// The cursor reply shape shared by find, aggregate, getMore and the list commands:
// {cursor: {firstBatch|nextBatch: [...], id: Int64, ns}}.
#pragma once

#include <cstdint>
#include <string_view>

#include "bson/value.h"
#include "query/cursor_source.h"

namespace quarry::commands {

class CommandContext;

bson::Document BuildCursorReply(std::string_view batch_field, const query::Batch& batch,
                                std::int64_t cursor_id, std::string_view ns);

// The same for a query's results (find, getMore, aggregate): the batch's documents count as
// what the operation returned (nreturned, serverStatus' metrics.document.returned).
bson::Document BuildResultsReply(CommandContext& ctx, std::string_view batch_field,
                                 const query::Batch& batch, std::int64_t cursor_id,
                                 std::string_view ns);

}  // namespace quarry::commands
