#include "exec/stages/collection_scan.h"

namespace quarry::exec {
namespace {

// Records between interrupt checks: often enough that a killed scan stops within
// milliseconds, rarely enough to cost nothing.
constexpr std::int64_t kRecordsPerInterruptCheck = 256;

}  // namespace

CollectionScan::CollectionScan(const storage::RecordStore* records,
                               std::shared_ptr<const Interrupt> interrupt, Options options)
    : records_(records), interrupt_(std::move(interrupt)), options_(std::move(options)) {}

StatusWith<WorkState> CollectionScan::DoWork(PlanResult* out) {
  if (done_) return WorkState::kEof;
  if (cursor_ == nullptr) {
    cursor_ = records_->Scan(options_.collection, resume_after_, options_.direction);
    on_returned_record_ = false;
  }
  if (on_returned_record_) {
    cursor_->Next();
    on_returned_record_ = false;
  }
  StageStats& stats = mutable_stats();
  if (cursor_->Valid()) {
    if (++stats.docs_examined % kRecordsPerInterruptCheck == 0 && interrupt_ != nullptr) {
      QUARRY_RETURN_IF_ERROR(interrupt_->Check());
    }
    resume_after_.assign(cursor_->id_key());
    on_returned_record_ = true;  // examined: the next unit moves past it
    bson::DocumentView doc = cursor_->document();
    out->details = query::MatchDetails();
    if (options_.filter.has_value() &&
        !options_.filter->Matches(doc, options_.want_match_details ? &out->details : nullptr)) {
      return WorkState::kNeedTime;
    }
    out->owned.reset();
    out->doc = doc;
    return WorkState::kAdvanced;
  }
  Status status = cursor_->status();
  cursor_.reset();
  done_ = true;
  QUARRY_RETURN_IF_ERROR(status);
  return WorkState::kEof;
}

void CollectionScan::ExplainDetails(bson::DocumentBuilder* b) const {
  if (options_.filter.has_value()) b->AppendDocument("filter", options_.filter->filter());
  b->AppendString("direction",
                  options_.direction == storage::ScanDirection::kForward ? "forward" : "backward");
}

}  // namespace quarry::exec
