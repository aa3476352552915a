// The change-stream cursor: positioning (resume tokens, startAtOperationTime, now), oplog scans
// between batches, the user's stages and postBatchResumeToken.
#include "changestream/change_stream_cursor.h"

#include <algorithm>

namespace quarry::changestream {
namespace {

// mongod's limit for one document in a reply (BSONObjMaxUserSize + internal slack).
constexpr std::size_t kMaxEventBytes = 16 * 1024 * 1024 + 16 * 1024;

Status HistoryLost() {
  return Status(ErrorCode::kChangeStreamHistoryLost,
                "Resume of change stream was not possible, as the resume point may no longer be "
                "in the oplog.");
}

Status TokenNotFound(const ResumeToken& token) {
  return Status(
      ErrorCode::kChangeStreamFatalError,
      "cannot resume stream; the resume token was not found. " + token.ToDocument().ToJson());
}

Status IdModified() {
  return Status(ErrorCode::kChangeStreamFatalError,
                "Encountered an event whose _id field, which contains the resume token, was "
                "modified by the pipeline. Modifying the _id field of an event makes it "
                "impossible to resume the stream from that point. Only transformations that "
                "retain the unmodified _id field are allowed.");
}

// Checks that the oplog still holds the event `token` names, as this server wrote it, and that
// it is an event of this stream (mongod looks for the token among the stream's own events, so a
// token of another collection's event cannot resume a collection stream). Returns the event's
// entry's timestamp: for a transaction's change, the token names the commit's time and the
// change's position in the transaction.
StatusWith<storage::Timestamp> CheckTokenEvent(const storage::Oplog& oplog,
                                               const ResumeToken& token,
                                               const ChangeStreamSpec& spec,
                                               storage::Timestamp trimmed_before) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<TransactionSpan> transaction,
                          TransactionSpanAt(oplog, token.ts));
  storage::Timestamp at = token.ts;
  if (transaction.has_value()) {
    if (transaction->last != token.ts ||
        token.txn_op_index > transaction->last - transaction->first) {
      return TokenNotFound(token);
    }
    at = transaction->first + token.txn_op_index;
  } else if (token.txn_op_index != 0) {
    return TokenNotFound(token);
  }
  if (at < trimmed_before) return HistoryLost();
  std::unique_ptr<storage::OplogCursor> cursor = oplog.Scan(at);
  if (!cursor->Valid()) {
    QUARRY_RETURN_IF_ERROR(cursor->status());
    return TokenNotFound(token);
  }
  if (cursor->ts() != at) return TokenNotFound(token);
  QUARRY_ASSIGN_OR_RETURN(OplogEntry entry, storage::ParseOplogEntry(cursor->entry()));
  entry.ts = token.ts;
  ResumeToken found = EventTokenFor(entry, token.txn_op_index);
  if (found.event_hash != token.event_hash || found.uuid != token.uuid) {
    return TokenNotFound(token);
  }
  // Scope and kind only: no document lookups or images for this check.
  ChangeStreamSpec scope_only = spec;
  scope_only.full_document = FullDocumentMode::kDefault;
  scope_only.full_document_before_change = BeforeChangeMode::kOff;
  QUARRY_ASSIGN_OR_RETURN(std::vector<ChangeEvent> events,
                          BuildEvents(entry, scope_only, EventSources{}));
  if (events.empty()) return TokenNotFound(token);
  return at;
}

// Where a stream that starts at `ts` begins reading: at the first change of a transaction `ts`
// falls inside, whose events are all at its commit's time, so at or after `ts`.
StatusWith<storage::Timestamp> StartOf(const storage::Oplog& oplog, storage::Timestamp ts) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<TransactionSpan> transaction, TransactionSpanAt(oplog, ts));
  return transaction.has_value() ? transaction->first : ts;
}

}  // namespace

ChangeStreamCursor::ChangeStreamCursor(ChangeStreamRequest request, ChangeStreamDeps deps)
    : spec_(std::move(request.spec)),
      post_stages_(std::move(request.post_stages)),
      deps_(std::move(deps)) {
  has_post_stages_ = !post_stages_.stages().empty();
}

StatusWith<std::unique_ptr<ChangeStreamCursor>> ChangeStreamCursor::Open(
    ChangeStreamRequest request, ChangeStreamDeps deps) {
  if (deps.oplog == nullptr) {
    return Status(ErrorCode::kInternalError, "a change stream cursor needs the oplog");
  }
  std::unique_ptr<ChangeStreamCursor> cursor(
      new ChangeStreamCursor(std::move(request), std::move(deps)));
  const ChangeStreamSpec& spec = cursor->spec_;
  const storage::Timestamp trimmed_before = cursor->TrimmedBefore();
  const std::optional<ResumeToken>& token =
      spec.resume_after.has_value() ? spec.resume_after : spec.start_after;

  if (token.has_value() && token->is_event()) {
    QUARRY_ASSIGN_OR_RETURN(storage::Timestamp at,
                            CheckTokenEvent(*cursor->deps_.oplog, *token, spec, trimmed_before));
    // Re-read the token's entry: its events after the token (the invalidate that follows a
    // drop, for one) still belong to this stream.
    cursor->next_ts_ = at;
    cursor->skip_through_ = *token;
    cursor->pbrt_ = *token;
    return cursor;
  }
  if (token.has_value()) {
    cursor->next_ts_ = std::max<storage::Timestamp>(token->ts, 1);
  } else if (spec.start_at_operation_time.has_value()) {
    cursor->next_ts_ = std::max<storage::Timestamp>(*spec.start_at_operation_time, 1);
  } else {
    cursor->next_ts_ = cursor->deps_.oplog->LatestTimestamp() + 1;
  }
  if (cursor->next_ts_ < trimmed_before) return HistoryLost();
  cursor->pbrt_ = ResumeToken::HighWaterMark(cursor->next_ts_);
  QUARRY_ASSIGN_OR_RETURN(cursor->next_ts_, StartOf(*cursor->deps_.oplog, cursor->next_ts_));
  return cursor;
}

storage::Timestamp ChangeStreamCursor::TrimmedBefore() const {
  return deps_.trimmed_before ? deps_.trimmed_before() : 0;
}

void ChangeStreamCursor::AdvancePbrt(const ResumeToken& token) {
  if (CompareResumeTokens(token, pbrt_) > 0) pbrt_ = token;
}

bool ChangeStreamCursor::HasNewEntries() const {
  if (exhausted_) return false;
  return !pending_.empty() || deps_.oplog->LatestTimestamp() >= next_ts_;
}

StatusWith<query::Batch> ChangeStreamCursor::NextBatch(std::size_t max_docs,
                                                       std::size_t max_bytes) {
  query::Batch batch;
  if (exhausted_ || max_docs == 0) return batch;

  const ResumeToken* last_returned = nullptr;
  ResumeToken last_token;
  auto take_pending = [&] {
    while (!pending_.empty() && batch.documents.size() < max_docs) {
      const std::size_t size = pending_.front().document.size();
      if (!batch.documents.empty() && batch.bytes + size > max_bytes) break;
      batch.bytes += size;
      last_token = std::move(pending_.front().token);
      last_returned = &last_token;
      batch.documents.push_back(std::move(pending_.front().document));
      pending_.pop_front();
    }
  };

  take_pending();
  if (pending_.empty() && !invalidate_token_.has_value() && batch.documents.size() < max_docs) {
    Status scanned = Scan(max_docs - batch.documents.size());
    if (!scanned.ok()) {
      exhausted_ = true;
      pending_.clear();
      return scanned;
    }
    take_pending();
  }

  if (!pending_.empty()) {
    if (last_returned != nullptr) AdvancePbrt(*last_returned);
  } else if (invalidate_token_.has_value()) {
    // mongod closes the cursor with the invalidate token as the batch's resume token, whether
    // or not the user's stages let the invalidate event through.
    AdvancePbrt(*invalidate_token_);
    exhausted_ = true;
  } else {
    AdvancePbrt(ResumeToken::HighWaterMark(next_ts_));
  }
  return batch;
}

Status ChangeStreamCursor::Scan(std::size_t want) {
  const storage::Timestamp start = next_ts_;
  {
    // One short-lived storage cursor per batch: a live iterator pins every version it can see,
    // and a stream may idle for minutes between getMores.
    std::unique_ptr<storage::OplogCursor> cursor = deps_.oplog->Scan(next_ts_);
    std::size_t examined = 0;
    for (; cursor->Valid() && examined < deps_.max_entries_per_batch; cursor->Next()) {
      ++examined;
      const storage::Timestamp ts = cursor->ts();
      QUARRY_ASSIGN_OR_RETURN(OplogEntry entry, storage::ParseOplogEntry(cursor->entry()));
      std::uint32_t txn_op_index = 0;
      if (entry.lsid.has_value()) {
        if (!transaction_.has_value() || !transaction_->Contains(ts)) {
          QUARRY_ASSIGN_OR_RETURN(transaction_, TransactionSpanAt(*deps_.oplog, ts));
        }
        if (transaction_.has_value()) {
          txn_op_index = static_cast<std::uint32_t>(ts - transaction_->first);
          entry.ts = transaction_->last;
        }
      }
      QUARRY_ASSIGN_OR_RETURN(std::vector<ChangeEvent> events,
                              BuildEvents(entry, spec_, deps_.sources, txn_op_index));
      next_ts_ = ts + 1;
      for (ChangeEvent& event : events) {
        if (skip_through_.has_value() && CompareResumeTokens(event.token, *skip_through_) <= 0) {
          continue;
        }
        if (event.invalidate) invalidate_token_ = event.token;
        QUARRY_RETURN_IF_ERROR(RunPostStages(std::move(event)));
      }
      if (skip_through_.has_value() && entry.ts >= skip_through_->ts) skip_through_.reset();
      if (invalidate_token_.has_value() || pending_.size() >= want) break;
    }
    QUARRY_RETURN_IF_ERROR(cursor->status());
  }
  // Checked after the scan: the retention task raises the boundary before it deletes, so a scan
  // that raced with a trim sees the new boundary here.
  if (start < TrimmedBefore()) return HistoryLost();
  return Status::OK();
}

Status ChangeStreamCursor::RunPostStages(ChangeEvent event) {
  if (!has_post_stages_) {
    if (event.document.size() > kMaxEventBytes) {
      return Status(ErrorCode::kBSONObjectTooLarge,
                    "BSONObj size: " + std::to_string(event.document.size()) +
                        " is invalid. Size must be between 0 and 16793600(16MB)");
    }
    pending_.push_back(Pending{std::move(event.token), std::move(event.document)});
    return Status::OK();
  }
  const bson::Document token_doc = event.token.ToDocument();
  std::vector<bson::Document> input;
  input.push_back(std::move(event.document));
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<query::DocumentStream> output,
                          post_stages_.Run(query::StreamOfDocuments(std::move(input))));
  while (true) {
    bson::Document out;
    QUARRY_ASSIGN_OR_RETURN(bool more, output->Next(&out));
    if (!more) break;
    bson::ValueView id = out.Get("_id");
    if (id.type() != bson::Type::kDocument || id.Document().bytes() != token_doc.bytes()) {
      return IdModified();
    }
    if (out.size() > kMaxEventBytes) {
      return Status(ErrorCode::kBSONObjectTooLarge,
                    "BSONObj size: " + std::to_string(out.size()) +
                        " is invalid. Size must be between 0 and 16793600(16MB)");
    }
    pending_.push_back(Pending{event.token, std::move(out)});
  }
  return Status::OK();
}

}  // namespace quarry::changestream
