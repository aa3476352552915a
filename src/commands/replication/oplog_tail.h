// getMore on an awaitData cursor of local.oplog.rs: waits for the next commit instead of
// answering an empty batch, as mongod's tailable cursors on capped collections do.
#pragma once

#include <cstdint>
#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "cursors/cursor_manager.h"

namespace quarry::commands {

class CommandContext;

// True for a cursor opened by find on local.oplog.rs with tailable and awaitData.
bool IsAwaitingOplogCursor(cursors::PinnedCursor& cursor);

// Answers at once when entries are there; else parks the cursor with the change notifier until
// a commit or the getMore's maxTimeMS (1 second without one), then answers what came (perhaps
// nothing, with the cursor still open). REQUIRES: IsAwaitingOplogCursor(cursor).
StatusWith<bson::Document> OplogGetMore(CommandContext& ctx, const Request& request,
                                        cursors::PinnedCursor& cursor,
                                        std::optional<std::int64_t> batch_size);

}  // namespace quarry::commands
