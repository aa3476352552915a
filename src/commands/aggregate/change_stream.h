// Change streams in the command layer: the aggregate that opens one, and the getMore that
// waits for the next change without holding a thread (through CommandContext::Defer and the
// change notifier).
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "cursors/cursor_manager.h"

namespace quarry::commands {

// aggregate with a pipeline that starts with $changeStream: opens the cursor and answers its
// (possibly empty) first batch at once.
StatusWith<bson::Document> RunChangeStreamAggregate(CommandContext& ctx, const Request& request,
                                                    std::optional<std::string> coll,
                                                    bson::DocumentView pipeline,
                                                    bson::DocumentView let,
                                                    std::optional<std::int64_t> batch_size);

bool IsChangeStream(cursors::PinnedCursor& cursor);

// `status` with the error label (ResumableChangeStreamError / NonResumableChangeStreamError)
// mongod gives an error on a change-stream cursor, carried in its extra info.
Status LabelChangeStreamError(Status status);

// getMore on a change-stream cursor (REQUIRES: IsChangeStream): returns the events already
// there, or defers the reply until a commit brings some or maxTimeMS (default 1 s) passes.
StatusWith<bson::Document> ChangeStreamGetMore(CommandContext& ctx, const Request& request,
                                               cursors::PinnedCursor& cursor,
                                               std::optional<std::int64_t> batch_size);

}  // namespace quarry::commands
