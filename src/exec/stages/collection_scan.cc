#include "exec/stages/collection_scan.h"

namespace quarry::exec {
namespace {

// Records between interrupt checks: often enough that a killed scan stops within
// milliseconds, rarely enough to cost nothing.
constexpr std::int64_t kRecordsPerInterruptCheck = 256;

}  // namespace

CollectionScan::CollectionScan(const storage::RecordStore* records,
                               std::shared_ptr<const Interrupt> interrupt, Options options)
    : records_(records),
      interrupt_(std::move(interrupt)),
      options_(std::move(options)),
      done_(options_.reads_nothing) {
  if (!forward() && !options_.id_ranges.empty()) range_ = options_.id_ranges.size() - 1;
}

std::string_view CollectionScan::RangeStart() const {
  if (options_.id_ranges.empty()) return {};
  const IdRange& range = options_.id_ranges[range_];
  if (!forward()) return range.max;  // the records below it
  // No record key lies between this and min but those that share all its bytes up to the
  // last one and fall below it: DoWork skips them.
  return std::string_view(range.min).substr(0, range.min.empty() ? 0 : range.min.size() - 1);
}

bool CollectionScan::PastRange(std::string_view id_key) const {
  const IdRange& range = options_.id_ranges[range_];
  return forward() ? !range.max.empty() && id_key >= range.max : id_key < range.min;
}

StatusWith<WorkState> CollectionScan::DoWork(PlanResult* out) {
  if (done_) return WorkState::kEof;
  if (cursor_ == nullptr) {
    const std::string_view start_after = resume_after_.empty() ? RangeStart() : resume_after_;
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
    if (!options_.id_ranges.empty()) {
      if (PastRange(resume_after_)) {
        const bool last = forward() ? range_ + 1 == options_.id_ranges.size() : range_ == 0;
        cursor_.reset();
        if (last) {
          done_ = true;
          return WorkState::kEof;
        }
        // The next range starts further on: seek there rather than read what lies between.
        range_ = forward() ? range_ + 1 : range_ - 1;
        resume_after_.clear();
        return WorkState::kNeedTime;
      }
      if (forward() && resume_after_ < options_.id_ranges[range_].min) {
        return WorkState::kNeedTime;
      }
    }
    bson::DocumentView doc = cursor_->document();
    out->details = query::MatchDetails();
    if (options_.filter.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(
          bool matched,
          options_.filter->Evaluate(doc, options_.want_match_details ? &out->details : nullptr));
      if (!matched) return WorkState::kNeedTime;
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
  if (!options_.id_bounds.view().empty()) b->AppendDocument("indexBounds", options_.id_bounds);
  b->AppendString("direction", forward() ? "forward" : "backward");
}

}  // namespace quarry::exec
