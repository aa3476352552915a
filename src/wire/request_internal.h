// The per-opcode parsers behind ParseRequest. `message` is one uncompressed frame, header
// included, whose length has already been checked.
#pragma once

#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "wire/request.h"

namespace quarry::wire::internal {

Status ParseOpMsg(std::string_view message, Request* request);
Status ParseOpQuery(std::string_view message, Request* request);

// Reads the BSON document at the front of `*rest` and advances past it: checks its length
// (kBSONObjectTooLarge above kMaxInternalBsonObjectSize, kInvalidBSON if it overruns `*rest`)
// and validates it. `what` names the document in errors ("OP_MSG body"). Raises `*deepest` to
// the document's levels of nesting when it has more.
Status ReadDocument(std::string_view what, std::string_view* rest, bson::DocumentView* doc,
                    int* deepest);

}  // namespace quarry::wire::internal
