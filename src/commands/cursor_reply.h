// The cursor reply shape shared by find, aggregate, getMore and the list commands:
// {cursor: {firstBatch|nextBatch: [...], id: Int64, ns}}.
#pragma once

#include <cstdint>
#include <string_view>

#include "bson/value.h"
#include "query/cursor_source.h"

namespace quarry::commands {

bson::Document BuildCursorReply(std::string_view batch_field, const query::Batch& batch,
                                std::int64_t cursor_id, std::string_view ns);

}  // namespace quarry::commands
