#include "exec/stages/natural_scan.h"

#include "base/endian.h"

namespace quarry::exec {
namespace {

// Records between interrupt checks, as for a scan in _id order.
constexpr std::int64_t kRecordsPerInterruptCheck = 256;

}  // namespace

NaturalScan::NaturalScan(const storage::IndexStore* indexes, const storage::RecordStore* records,
                         std::shared_ptr<const Interrupt> interrupt, Options options)
    : indexes_(indexes),
      records_(records),
      interrupt_(std::move(interrupt)),
      options_(std::move(options)) {}

Status NaturalScan::Restore() {
  // A tailable scan at its end reads on from there: what was inserted since follows.
  if (options_.tailable) done_ = false;
  return Status::OK();
}

Status NaturalScan::CheckPositionKept() const {
  std::unique_ptr<storage::IndexCursor> last =
      indexes_->Scan(options_.natural_order_index,
                     storage::KeyRange{.lower = resume_position_, .upper = resume_position_});
  if (last->Valid() && last->entry_key() == resume_after_) return Status::OK();
  QUARRY_RETURN_IF_ERROR(last->status());
  const std::string record_id =
      "RecordId(" +
      std::to_string(resume_position_.size() >= 8 ? LoadBigEndian64(resume_position_.data()) : 0) +
      ")";
  return Status(ErrorCode::kCappedPositionLost,
                options_.tailable
                    ? "CollectionScan died due to failure to restore tailable cursor position. "
                      "Last seen record id: " +
                          record_id
                    : "CollectionScan died due to position in capped collection being deleted. "
                      "Last seen record id: " +
                          record_id);
}

StatusWith<WorkState> NaturalScan::DoWork(PlanResult* out) {
  if (done_) return WorkState::kEof;
  if (cursor_ == nullptr) {
    // The record last read must still be there, or the scan cannot tell what it has missed.
    if (resume_record_seen_) QUARRY_RETURN_IF_ERROR(CheckPositionKept());
    cursor_ = indexes_->Scan(options_.natural_order_index, storage::KeyRange{}, options_.direction,
                             resume_after_);
    on_returned_entry_ = false;
  }
  if (on_returned_entry_) {
    cursor_->Next();
    on_returned_entry_ = false;
  }
  if (!cursor_->Valid()) {
    Status status = cursor_->status();
    cursor_.reset();
    done_ = true;
    QUARRY_RETURN_IF_ERROR(status);
    return WorkState::kEof;
  }
  resume_after_.assign(cursor_->entry_key());
  resume_position_.assign(cursor_->key().substr(0, 8));
  on_returned_entry_ = true;  // examined: the next unit moves past it
  // A named StatusWith, not QUARRY_ASSIGN_OR_RETURN: GCC 12 under ASan takes the optional moved
  // out of a temporary for uninitialized.
  StatusWith<std::optional<bson::Document>> found =
      records_->FindByIdKey(options_.collection, cursor_->id_key());
  if (!found.ok()) return found.status();
  std::optional<bson::Document>& doc = found.value();
  resume_record_seen_ = doc.has_value();
  if (!doc.has_value()) return WorkState::kNeedTime;  // evicted or deleted since
  StageStats& stats = mutable_stats();
  if (++stats.docs_examined % kRecordsPerInterruptCheck == 0 && interrupt_ != nullptr) {
    QUARRY_RETURN_IF_ERROR(interrupt_->Check());
  }
  out->owned.reset();
  out->doc = bson::DocumentView();
  out->details = query::MatchDetails();
  out->id_key = {};
  out->index_key = {};
  if (options_.filter.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(
        bool matched,
        options_.filter->Evaluate(*doc, options_.want_match_details ? &out->details : nullptr));
    if (!matched) return WorkState::kNeedTime;
  }
  out->Own(std::move(*doc));
  return WorkState::kAdvanced;
}

void NaturalScan::ExplainDetails(bson::DocumentBuilder* b) const {
  if (options_.filter.has_value()) b->AppendDocument("filter", options_.filter->filter());
  b->AppendString("direction",
                  options_.direction == storage::ScanDirection::kForward ? "forward" : "backward");
}

}  // namespace quarry::exec
