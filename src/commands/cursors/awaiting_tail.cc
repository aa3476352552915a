// The wait of an awaitData getMore, on the change notifier's worker thread (as a change
// stream's), so a waiting tail holds no thread.
#include "commands/cursors/awaiting_tail.h"

#include <chrono>
#include <memory>
#include <string>

#include "changestream/change_notifier.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "cursors/batch_limits.h"

namespace quarry::commands {
namespace {

// mongod's wait for an awaitData getMore without maxTimeMS.
constexpr std::chrono::milliseconds kDefaultAwaitTime{1000};

// A getMore parked until a commit or its deadline; it owns the pinned cursor meanwhile.
struct ParkedTail {
  cursors::PinnedCursor cursor;
  TailSource* source;
  changestream::ChangeNotifier* notifier;
  cursors::BatchLimits limits;
  std::string ns;
  std::chrono::steady_clock::time_point deadline;
  CommandContext::Completion complete;
};

// Replies with `batch`, releasing the pin before the reply goes out so that the client's next
// getMore finds the cursor free.
void Answer(const std::shared_ptr<ParkedTail>& parked, StatusWith<query::Batch> batch) {
  StatusWith<bson::Document> reply = bson::Document();
  {
    cursors::PinnedCursor pinned = std::move(parked->cursor);
    if (!batch.ok()) {
      pinned.Close();
      reply = batch.status();
    } else {
      std::int64_t id = pinned.id();
      if (parked->source->exhausted()) {
        pinned.Close();
        id = 0;
      }
      reply = BuildCursorReply("nextBatch", batch.value(), id, parked->ns);
    }
  }
  parked->complete(std::move(reply));
}

void Serve(const std::shared_ptr<ParkedTail>& parked);

// Waits for a commit after what the cursor has read. Woken without one (the deadline, or the
// notifier shutting down), it answers what there is rather than waiting again.
void Park(const std::shared_ptr<ParkedTail>& parked) {
  parked->notifier->Wait(
      parked->source->last_read(), parked->deadline, [parked](bool woke_by_change) {
        if (woke_by_change) {
          Serve(parked);
          return;
        }
        Answer(parked,
               parked->source->NextBatch(parked->limits.max_docs, parked->limits.max_bytes));
      });
}

// Reads what there is; answers if anything came (or at the deadline), else parks.
void Serve(const std::shared_ptr<ParkedTail>& parked) {
  StatusWith<query::Batch> batch =
      parked->source->NextBatch(parked->limits.max_docs, parked->limits.max_bytes);
  const bool nothing_yet =
      batch.ok() && batch.value().documents.empty() && !parked->source->exhausted();
  if (!nothing_yet || std::chrono::steady_clock::now() >= parked->deadline) {
    Answer(parked, std::move(batch));
    return;
  }
  Park(parked);
}

}  // namespace

bool IsAwaitingTailCursor(cursors::PinnedCursor& cursor) {
  return cursor.options().await_data && dynamic_cast<TailSource*>(&cursor.source()) != nullptr;
}

StatusWith<bson::Document> AwaitingTailGetMore(CommandContext& ctx, const Request& request,
                                               cursors::PinnedCursor& cursor,
                                               std::optional<std::int64_t> batch_size) {
  auto* source = static_cast<TailSource*>(&cursor.source());
  const cursors::BatchLimits limits = cursors::GetMoreBatchLimits(batch_size);
  changestream::ChangeNotifier* notifier = ctx.service().notifier;
  if (notifier == nullptr) {  // no notifier to wait with: answer what there is now
    StatusWith<query::Batch> batch = source->NextBatch(limits.max_docs, limits.max_bytes);
    if (!batch.ok()) {
      cursor.Close();
      return batch.status();
    }
    return BuildResultsReply(ctx, "nextBatch", batch.value(), cursor.id(), cursor.ns());
  }
  bson::ValueView max_time = request.body.Get("maxTimeMS");
  const auto wait = max_time.IsNumber() && max_time.AsInt64() > 0
                        ? std::chrono::milliseconds(max_time.AsInt64())
                        : kDefaultAwaitTime;
  std::string ns = cursor.ns();
  auto parked =
      std::make_shared<ParkedTail>(ParkedTail{.cursor = std::move(cursor),
                                              .source = source,
                                              .notifier = notifier,
                                              .limits = limits,
                                              .ns = std::move(ns),
                                              .deadline = std::chrono::steady_clock::now() + wait,
                                              .complete = {}});
  ctx.Defer([parked](CommandContext::Completion complete) {
    parked->complete = std::move(complete);
    parked->notifier->Post([parked] { Serve(parked); });
  });
  return StatusWith<bson::Document>(bson::Document());
}

}  // namespace quarry::commands
