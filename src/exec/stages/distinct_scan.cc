#include "exec/stages/distinct_scan.h"

#include <utility>

#include "exec/index_usage.h"
#include "exec/key_values.h"
#include "exec/operation_work.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

constexpr std::int64_t kKeysPerInterruptCheck = 256;

}  // namespace

DistinctScan::DistinctScan(const storage::IndexStore* indexes,
                           std::shared_ptr<const Interrupt> interrupt, DistinctScanOptions options)
    : indexes_(indexes), interrupt_(std::move(interrupt)), options_(std::move(options)) {
  RecordIndexUse(options_.scan.index);
}

std::string DistinctScan::FirstFieldOf(std::string_view key) const {
  const bool descending = options_.scan.parsed->descriptor.fields().front().descending;
  return std::string(key.substr(0, storage::EncodedLength(key, descending)));
}

StatusWith<std::optional<bson::Document>> DistinctScan::CurrentDocument() {
  std::optional<bson::Document> doc =
      KeyDocument(options_.scan.parsed->descriptor, cursor_->key_values());
  if (doc.has_value()) return doc;
  ++mutable_stats().docs_examined;
  return options_.scan.records->FindByIdKey(options_.scan.collection, cursor_->id_key());
}

StatusWith<WorkState> DistinctScan::DoWork(PlanResult* out) {
  const std::vector<KeyInterval>& intervals = options_.scan.bounds.intervals;
  if (interval_ >= intervals.size()) return WorkState::kEof;
  if (cursor_ == nullptr) {
    const KeyInterval& interval = intervals[interval_];
    storage::KeyRange range{.lower = interval.start,
                            .lower_inclusive = interval.start_inclusive,
                            .upper = interval.end,
                            .upper_inclusive = interval.end_inclusive};
    if (!last_value_.empty()) {
      // Past every entry whose first field is the value handed up last.
      range.lower = last_value_;
      range.lower_inclusive = false;
    }
    cursor_ = indexes_->Scan(options_.scan.index, range, storage::ScanDirection::kForward,
                             /*resume_after=*/{});
  }
  if (!cursor_->Valid()) {
    QUARRY_RETURN_IF_ERROR(cursor_->status());
    cursor_.reset();
    last_value_.clear();
    ++interval_;
    return interval_ < intervals.size() ? WorkState::kNeedTime : WorkState::kEof;
  }
  if (++mutable_stats().keys_examined % kKeysPerInterruptCheck == 0 && interrupt_ != nullptr) {
    QUARRY_RETURN_IF_ERROR(interrupt_->Check());
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> doc, CurrentDocument());
  bool wanted = doc.has_value() && query::CollectPathValues(*doc, options_.field).front().exists();
  if (wanted && options_.scan.filter.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(wanted, options_.scan.filter->Evaluate(*doc));
  }
  if (!wanted) {
    cursor_->Next();  // another entry with this first field may still qualify
    return WorkState::kNeedTime;
  }
  last_value_ = FirstFieldOf(cursor_->key());
  cursor_.reset();
  out->owned.reset();  // field by field: see Fetch::DoWork
  out->details = query::MatchDetails();
  out->id_key = {};
  out->index_key = {};
  out->Own(std::move(*doc));
  return WorkState::kAdvanced;
}

void DistinctScan::ExplainDetails(bson::DocumentBuilder* b) const {
  AppendIndexScanDetails(options_.scan, b);
}

void DistinctScan::AppendLeafSummary(std::string* out) const {
  AppendScanSummary(name(), options_.scan.key_pattern.view(), out);
}

}  // namespace quarry::exec
