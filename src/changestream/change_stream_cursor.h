// The change-stream cursor: reads the oplog from its position, turns entries into events for its
// scope, runs the user's stages over each event and hands out batches, each with its
// postBatchResumeToken. It keeps a position (a timestamp), never a storage iterator, between
// batches.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "changestream/change_stream_spec.h"
#include "changestream/event_builder.h"
#include "changestream/resume_token.h"
#include "changestream/transaction_span.h"
#include "query/cursor_source.h"
#include "query/pipeline/pipeline.h"
#include "storage/oplog.h"
#include "storage/types.h"

namespace quarry::changestream {

// What a cursor needs besides its request.
struct ChangeStreamDeps {
  const storage::Oplog* oplog = nullptr;  // required; must outlive the cursor
  EventSources sources;                   // document lookup (updateLookup), images
  // Entries older than this timestamp may have been trimmed from the oplog (0: none ever were);
  // OplogRetention::TrimmedBefore. Empty: nothing is ever trimmed.
  std::function<storage::Timestamp()> trimmed_before;
  // At most this many oplog entries are examined per NextBatch, so a stream that filters out
  // most entries answers promptly; the caller asks again while HasNewEntries().
  std::size_t max_entries_per_batch = 10000;
};

class ChangeStreamCursor final : public query::CursorSource {
 public:
  // Positions a cursor per the request: after the resume token (resumeAfter / startAfter), at
  // startAtOperationTime, or after the newest oplog entry (only changes committed from now on).
  // Fails with ChangeStreamHistoryLost (286) when the start point is older than the retained
  // oplog, and with ChangeStreamFatalError (280) "cannot resume stream; the resume token was not
  // found." when the token's event is not in the oplog or is not an event of this stream (a
  // token of another collection's event on a collection stream).
  static StatusWith<std::unique_ptr<ChangeStreamCursor>> Open(ChangeStreamRequest request,
                                                              ChangeStreamDeps deps);

  // The next events, within the limits (at least one if any is ready). Never waits: an empty
  // batch with !exhausted() means "nothing yet" (see HasNewEntries / WaitAfter). Errors:
  // ChangeStreamFatalError (280) when the user's stages change an event's _id,
  // ChangeStreamHistoryLost (286) when the oplog was trimmed past the cursor, NoMatchingDocument
  // (47) for a required image that is missing, BSONObjectTooLarge (10334) for an event over
  // 16 MiB. After an error, or after the invalidate event is returned, exhausted() is true.
  StatusWith<query::Batch> NextBatch(std::size_t max_docs, std::size_t max_bytes) override;
  bool exhausted() const override { return exhausted_; }

  // {_data: ...} for the reply after the last NextBatch: the last returned event's token while
  // events are still pending, else a high-water mark after the last entry examined (or the
  // invalidate token once invalidated). Never moves backwards.
  bson::Document PostBatchResumeToken() const { return pbrt_.ToDocument(); }
  const ResumeToken& post_batch_resume_token() const { return pbrt_; }

  // True when a NextBatch now could return more: events are pending, or the oplog holds entries
  // the cursor has not examined yet. When false, wait for a commit after WaitAfter().
  bool HasNewEntries() const;
  // The newest timestamp the cursor has examined (its position - 1): ChangeNotifier::Wait(
  // WaitAfter(), ...) fires on the first commit the cursor has not seen.
  storage::Timestamp WaitAfter() const { return next_ts_ - 1; }

  const ChangeStreamSpec& spec() const { return spec_; }

 private:
  struct Pending {
    ResumeToken token;
    bson::Document document;
  };

  ChangeStreamCursor(ChangeStreamRequest request, ChangeStreamDeps deps);

  // Examines entries from next_ts_, appending finished events to pending_, until `want` events
  // are pending, the entry budget is spent or the stream is invalidated.
  Status Scan(std::size_t want);
  // Runs the user's stages over one event; appends what comes out to pending_.
  Status RunPostStages(ChangeEvent event);
  storage::Timestamp TrimmedBefore() const;
  void AdvancePbrt(const ResumeToken& token);

  ChangeStreamSpec spec_;
  query::Pipeline post_stages_;
  bool has_post_stages_ = false;
  ChangeStreamDeps deps_;

  storage::Timestamp next_ts_ = 1;               // the first timestamp not examined yet
  std::optional<TransactionSpan> transaction_;   // the transaction of the last change examined
  std::optional<ResumeToken> skip_through_;      // drop events at or before this token (resuming)
  std::deque<Pending> pending_;                  // events that went through the user's stages
  std::optional<ResumeToken> invalidate_token_;  // set once the stream met its invalidate
  ResumeToken pbrt_;
  bool exhausted_ = false;
};

}  // namespace quarry::changestream
