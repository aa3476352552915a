#include "exec/stages/index_scan.h"

#include <iterator>
#include <utility>

#include "exec/explain_count.h"
#include "exec/index_usage.h"
#include "exec/key_values.h"
#include "exec/operation_work.h"

namespace quarry::exec {
namespace {

// As often as a collection scan checks: a clock read per key would show in short scans.
constexpr std::int64_t kKeysPerInterruptCheck = 256;

}  // namespace

IndexScan::IndexScan(const storage::IndexStore* indexes, std::shared_ptr<const Interrupt> interrupt,
                     IndexScanOptions options)
    : indexes_(indexes), interrupt_(std::move(interrupt)), options_(std::move(options)) {
  // A unique index's entries are keyed by their key fields alone, and encodings are prefix-free:
  // when every interval pins every key field, an interval holds one key at most, its start.
  const auto key_fields = static_cast<std::size_t>(
      std::distance(options_.key_pattern.view().begin(), options_.key_pattern.view().end()));
  point_lookups_ =
      options_.unique && key_fields > 0 && options_.bounds.equality_prefix == key_fields;
}

void IndexScan::Open() {
  if (!std::exchange(counted_use_, true)) RecordIndexUse(options_.index);
  const std::vector<KeyInterval>& intervals = options_.bounds.intervals;
  const KeyInterval& interval = intervals[forward() ? interval_ : intervals.size() - 1 - interval_];
  storage::KeyRange range{.lower = interval.start,
                          .lower_inclusive = interval.start_inclusive,
                          .upper = interval.end,
                          .upper_inclusive = interval.end_inclusive};
  if (point_lookups_) {
    cursor_ = indexes_->Lookup(options_.index, interval.start);
    // Resumed after this interval's one entry: it was handed up already.
    if (!resume_after_.empty() && cursor_->Valid() && cursor_->entry_key() == resume_after_) {
      cursor_->Next();
    }
  } else {
    cursor_ = indexes_->Scan(options_.index, range, options_.direction, resume_after_);
  }
  resume_after_.clear();
  ++seeks_;
}

StatusWith<WorkState> IndexScan::DoWork(PlanResult* out) {
  if (interval_ >= options_.bounds.intervals.size()) return WorkState::kEof;
  if (cursor_ == nullptr) {
    Open();
  } else if (returned_current_) {
    cursor_->Next();
  }
  returned_current_ = false;
  if (!cursor_->Valid()) {
    QUARRY_RETURN_IF_ERROR(cursor_->status());
    cursor_.reset();
    ++interval_;
    return interval_ < options_.bounds.intervals.size() ? WorkState::kNeedTime : WorkState::kEof;
  }
  if (++mutable_stats().keys_examined % kKeysPerInterruptCheck == 0 && interrupt_ != nullptr) {
    QUARRY_RETURN_IF_ERROR(interrupt_->Check());
  }
  returned_current_ = true;  // consumed: the next unit moves past it
  if (options_.multikey || options_.dedup) {
    ++dups_tested_;
    if (!seen_.emplace(cursor_->id_key()).second) {
      ++dups_dropped_;
      return WorkState::kNeedTime;
    }
  }
  out->owned.reset();  // field by field: see Fetch::DoWork
  out->doc = bson::DocumentView();
  out->details = query::MatchDetails();
  out->id_key = cursor_->id_key();
  out->index_key = cursor_->key();
  if (!options_.covered) return WorkState::kAdvanced;
  QUARRY_ASSIGN_OR_RETURN(bool matched, CoveredResult(out));
  return matched ? WorkState::kAdvanced : WorkState::kNeedTime;
}

StatusWith<bool> IndexScan::CoveredResult(PlanResult* out) {
  std::optional<bson::Document> doc =
      KeyDocument(options_.parsed->descriptor, cursor_->key_values());
  if (!doc.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(doc, options_.records->FindByIdKey(options_.collection, out->id_key));
    if (!doc.has_value()) return false;  // deleted since its entry was read
    ++mutable_stats().docs_examined;
  }
  if (options_.filter.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(bool matched, options_.filter->Evaluate(*doc));
    if (!matched) return false;
  }
  out->Own(std::move(*doc));
  return true;
}

void IndexScan::CountUse() const { RecordIndexUse(options_.index); }

void IndexScan::Save() {
  // Between calls the cursor rests on the entry handed up last: resume after it.
  if (cursor_ != nullptr && returned_current_ && cursor_->Valid()) {
    resume_after_ = std::string(cursor_->entry_key());
  }
  cursor_.reset();
}

Status IndexScan::Restore() {
  // Open() on the next DoWork resumes after resume_after_ (or at the interval's start). A scan
  // restored without a Save (a plan's first batch, after its trial) keeps its live cursor.
  return Status::OK();
}

void AppendIndexScanDetails(const IndexScanOptions& options, bson::DocumentBuilder* b) {
  b->AppendDocument("keyPattern", options.key_pattern);
  b->AppendString("indexName", options.name);
  if (options.parsed != nullptr) {
    // mongod shows the collation of an index that has one, fully specified as stored.
    bson::ValueView collation = options.parsed->descriptor.spec().Get("collation");
    if (collation.type() == bson::Type::kDocument) {
      b->AppendDocument("collation", collation.Document());
    }
  }
  b->AppendBool("isMultiKey", options.multikey);
  if (options.multikey_paths.has_value()) {
    b->AppendDocument("multiKeyPaths", *options.multikey_paths);
  }
  b->AppendBool("isUnique", options.unique);
  b->AppendBool("isSparse", options.sparse);
  b->AppendBool("isPartial", options.partial);
  b->AppendInt32("indexVersion", 2);
  b->AppendString("direction",
                  options.direction == storage::ScanDirection::kForward ? "forward" : "backward");
  b->AppendDocument("indexBounds", options.bounds.ToExplain());
  if (options.filter.has_value()) b->AppendDocument("filter", options.filter->filter());
}

void IndexScan::ExplainDetails(bson::DocumentBuilder* b) const {
  AppendIndexScanDetails(options_, b);
}

void IndexScan::ExplainStats(bson::DocumentBuilder* b) const {
  AppendCount(b, "seeks", seeks_);
  AppendCount(b, "dupsTested", dups_tested_);
  AppendCount(b, "dupsDropped", dups_dropped_);
}

void IndexScan::AppendLeafSummary(std::string* out) const {
  if (options_.parsed != nullptr && options_.parsed->descriptor.wildcard() == nullptr) {
    out->append(options_.parsed->scan_summary);
    return;
  }
  AppendScanSummary(name(), options_.key_pattern.view(), out);
}

}  // namespace quarry::exec
