// getMore on a tailable, awaitData cursor (of a capped collection, or of local.oplog.rs): waits
// for the next commit instead of answering an empty batch, as mongod's do.
#pragma once

#include <cstdint>
#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "cursors/cursor_manager.h"
#include "query/cursor_source.h"
#include "storage/types.h"

namespace quarry::commands {

class CommandContext;

// What a tailable cursor reads from, knowing how far its reads have seen the commits.
class TailSource : public query::CursorSource {
 public:
  // A timestamp no later than any commit the source's reads may have missed: a getMore with
  // nothing to read waits for a commit after it.
  virtual storage::Timestamp last_read() const = 0;
};

// True for a cursor opened by find with tailable and awaitData.
bool IsAwaitingTailCursor(cursors::PinnedCursor& cursor);

// Answers at once when entries are there; else parks the cursor with the change notifier until
// a commit or the getMore's maxTimeMS (1 second without one), then answers what came (perhaps
// nothing, with the cursor still open). REQUIRES: IsAwaitingTailCursor(cursor).
StatusWith<bson::Document> AwaitingTailGetMore(CommandContext& ctx, const Request& request,
                                               cursors::PinnedCursor& cursor,
                                               std::optional<std::int64_t> batch_size);

}  // namespace quarry::commands
