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
    std::string_view start_after = resume_after_;
    // No record key lies between this and min_id_key but those that share all its bytes up to
    // the last one and fall below it: they are skipped below.
    if (start_after.empty() && !options_.min_id_key.empty()) {
      start_after = std::string_view(options_.min_id_key).substr(0, options_.min_id_key.size() - 1);
    }
    cursor_ = records_->Scan(options_.collection, start_after, options_.direction);
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
    if (!options_.max_id_key.empty() && resume_after_ >= options_.max_id_key) {
      cursor_.reset();
      done_ = true;
      return WorkState::kEof;
    }
    if (resume_after_ < options_.min_id_key) return WorkState::kNeedTime;
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
  for (const char* edge : {"min", "max"}) {
    const bson::ValueView id = options_.id_range.view().Get(edge);
    if (id.exists()) b->Append(std::string(edge) + "Record", id);
  }
  b->AppendString("direction",
                  options_.direction == storage::ScanDirection::kForward ? "forward" : "backward");
}

}  // namespace quarry::exec
