#include "commands/aggregate/change_stream.h"

#include <chrono>
#include <memory>

#include "bson/builder.h"
#include "changestream/catalog_lookup.h"
#include "changestream/change_notifier.h"
#include "changestream/change_stream_cursor.h"
#include "changestream/change_stream_spec.h"
#include "changestream/error_labels.h"
#include "commands/aggregate/aggregate_io.h"
#include "commands/execution.h"
#include "cursors/batch_limits.h"
#include "storage/engine.h"

namespace quarry::commands {
namespace {

// mongod's wait for an awaitData getMore without maxTimeMS (SERVER-19665).
constexpr std::chrono::milliseconds kDefaultAwaitTime{1000};

bson::Document StreamReply(std::string_view batch_field, const query::Batch& batch,
                           std::int64_t cursor_id, std::string_view ns,
                           bson::DocumentView resume_token) {
  bson::DocumentBuilder b;
  b.OpenDocument("cursor");
  b.OpenArray(batch_field);
  for (std::size_t i = 0; i < batch.documents.size(); ++i) {
    b.AppendDocument(std::to_string(i), batch.documents[i]);
  }
  b.Close();
  b.AppendDocument("postBatchResumeToken", resume_token);
  b.AppendInt64("id", cursor_id);
  b.AppendString("ns", ns);
  b.Close();
  return std::move(b).Finish();
}

// A getMore parked until a change or its deadline. Owns the pinned cursor meanwhile, so no
// other getMore can use it and killCursors takes effect when the wait ends.
struct ParkedGetMore {
  cursors::PinnedCursor cursor;
  changestream::ChangeStreamCursor* stream;
  changestream::ChangeNotifier* notifier;
  cursors::BatchLimits limits;
  std::string ns;
  std::chrono::steady_clock::time_point deadline;
  CommandContext::Completion complete;
};

// Answers with the next batch; the cursor id is 0 once the stream has ended. The reply is built
// while the cursor is still pinned, and the pin is released before the reply goes out: the
// client's next getMore may arrive as soon as it reads this one, and must find the cursor free.
void Answer(const std::shared_ptr<ParkedGetMore>& parked, StatusWith<query::Batch> batch) {
  StatusWith<bson::Document> reply = bson::Document();
  {
    cursors::PinnedCursor pinned = std::move(parked->cursor);
    if (!batch.ok()) {
      pinned.Close();
      reply = LabelChangeStreamError(batch.status());
    } else {
      std::int64_t id = pinned.id();
      // Read before Close: closing an ended stream's cursor destroys the stream.
      bson::Document token = parked->stream->PostBatchResumeToken();
      if (parked->stream->exhausted()) {
        pinned.Close();
        id = 0;
      }
      reply = StreamReply("nextBatch", batch.value(), id, parked->ns, token);
    }
  }
  parked->complete(std::move(reply));
}

void Park(const std::shared_ptr<ParkedGetMore>& parked) {
  parked->notifier->Wait(
      parked->stream->WaitAfter(), parked->deadline, [parked](bool woke_by_change) {
        StatusWith<query::Batch> batch =
            parked->stream->NextBatch(parked->limits.max_docs, parked->limits.max_bytes);
        bool nothing_yet =
            batch.ok() && batch.value().documents.empty() && !parked->stream->exhausted();
        // A commit that brought nothing for this stream (another collection's, or events its
        // $match dropped): keep waiting until the deadline.
        if (nothing_yet && (woke_by_change || parked->stream->HasNewEntries()) &&
            std::chrono::steady_clock::now() < parked->deadline) {
          Park(parked);
          return;
        }
        Answer(parked, std::move(batch));
      });
}

// Answers now if the stream has something (or has ended), else parks until a change or the
// deadline. Runs on the notifier's worker, like every later step of the getMore.
void Serve(const std::shared_ptr<ParkedGetMore>& parked) {
  StatusWith<query::Batch> batch =
      parked->stream->NextBatch(parked->limits.max_docs, parked->limits.max_bytes);
  bool nothing_yet = batch.ok() && batch.value().documents.empty() && !parked->stream->exhausted();
  if (nothing_yet && std::chrono::steady_clock::now() < parked->deadline) {
    Park(parked);
    return;
  }
  Answer(parked, std::move(batch));
}

}  // namespace

StatusWith<bson::Document> RunChangeStreamAggregate(CommandContext& ctx, const Request& request,
                                                    std::optional<std::string> coll,
                                                    bson::DocumentView pipeline,
                                                    bson::DocumentView let,
                                                    std::optional<std::int64_t> batch_size) {
  auto io = std::make_shared<AggregateIo>(ctx);
  std::optional<std::string_view> coll_view;
  if (coll.has_value()) coll_view = *coll;
  QUARRY_ASSIGN_OR_RETURN(
      changestream::ChangeStreamRequest stream_request,
      changestream::ParseChangeStreamPipeline(pipeline, request.db, coll_view,
                                              io->MakePipelineContext(request.db, let, false)));
  std::string ns = changestream::CursorNamespace(stream_request.spec);
  changestream::ChangeStreamDeps deps;
  deps.oplog = &ctx.engine().oplog();
  deps.sources = changestream::MakeCatalogEventSources(&ctx.catalog(), &ctx.engine().records());
  if (ctx.service().oplog_trimmed_before) deps.trimmed_before = ctx.service().oplog_trimmed_before;
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<changestream::ChangeStreamCursor> stream,
      changestream::ChangeStreamCursor::Open(std::move(stream_request), std::move(deps)));
  cursors::BatchLimits limits = cursors::FirstBatchLimits(batch_size);
  QUARRY_ASSIGN_OR_RETURN(query::Batch batch, stream->NextBatch(limits.max_docs, limits.max_bytes));
  bson::Document token = stream->PostBatchResumeToken();
  std::int64_t id = 0;
  if (!stream->exhausted()) {
    cursors::CursorOptions options = CursorOptionsFor(ctx);
    options.tailable = true;
    options.await_data = true;
    id = ctx.cursors().Register(ns, std::move(stream), options);
  }
  return StreamReply("firstBatch", batch, id, ns, token);
}

bool IsChangeStream(cursors::PinnedCursor& cursor) {
  return dynamic_cast<changestream::ChangeStreamCursor*>(&cursor.source()) != nullptr;
}

Status LabelChangeStreamError(Status status) {
  std::optional<std::string_view> label = changestream::ChangeStreamErrorLabel(status.code());
  if (!label.has_value()) return status;
  bson::DocumentBuilder extra;
  if (!status.extra_info().empty())
    extra.AppendElements(bson::DocumentView(status.extra_info().data()));
  extra.OpenArray("errorLabels").AppendString("0", *label).Close();
  return std::move(status).WithExtraInfo(std::move(extra).FinishBytes());
}

StatusWith<bson::Document> ChangeStreamGetMore(CommandContext& ctx, const Request& request,
                                               cursors::PinnedCursor& cursor,
                                               std::optional<std::int64_t> batch_size) {
  auto* stream = static_cast<changestream::ChangeStreamCursor*>(&cursor.source());
  std::string ns = cursor.ns();
  auto parked = std::make_shared<ParkedGetMore>(
      ParkedGetMore{.cursor = std::move(cursor),
                    .stream = stream,
                    .notifier = ctx.service().notifier,
                    .limits = cursors::GetMoreBatchLimits(batch_size),
                    .ns = std::move(ns),
                    .deadline = {},
                    .complete = {}});
  if (parked->notifier == nullptr) {  // tests without a notifier: answer what there is now
    StatusWith<bson::Document> reply = bson::Document();
    parked->complete = [&reply](StatusWith<bson::Document> r) { reply = std::move(r); };
    Answer(parked, stream->NextBatch(parked->limits.max_docs, parked->limits.max_bytes));
    return reply;
  }
  bson::ValueView max_time = request.body.Get("maxTimeMS");
  auto wait = max_time.IsNumber() && max_time.AsInt64() > 0
                  ? std::chrono::milliseconds(max_time.AsInt64())
                  : kDefaultAwaitTime;
  parked->deadline = std::chrono::steady_clock::now() + wait;
  // Every batch is built on the notifier's worker, which runs at a lower priority than the
  // threads that serve writes: when the CPU is short, writers go first and change streams
  // deliver what accumulated in larger batches a moment later (main.cc, kNotifierNice).
  ctx.Defer([parked](CommandContext::Completion complete) {
    parked->complete = std::move(complete);
    parked->notifier->Post([parked] { Serve(parked); });
  });
  return StatusWith<bson::Document>(bson::Document());
}

}  // namespace quarry::commands
