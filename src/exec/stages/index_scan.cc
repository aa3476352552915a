#include "exec/stages/index_scan.h"

#include <utility>

#include "exec/index_usage.h"

namespace quarry::exec {
namespace {

// As often as a collection scan checks: a clock read per key would show in short scans.
constexpr std::int64_t kKeysPerInterruptCheck = 256;

}  // namespace

IndexScan::IndexScan(const storage::IndexStore* indexes, std::shared_ptr<const Interrupt> interrupt,
                     IndexScanOptions options)
    : indexes_(indexes), interrupt_(std::move(interrupt)), options_(std::move(options)) {}

void IndexScan::Open() {
  if (!std::exchange(counted_use_, true)) RecordIndexUse(options_.index);
  const std::vector<KeyInterval>& intervals = options_.bounds.intervals;
  const KeyInterval& interval = intervals[forward() ? interval_ : intervals.size() - 1 - interval_];
  storage::KeyRange range{.lower = interval.start,
                          .lower_inclusive = interval.start_inclusive,
                          .upper = interval.end,
                          .upper_inclusive = interval.end_inclusive};
  cursor_ = indexes_->Scan(options_.index, range, options_.direction, resume_after_);
  resume_after_.clear();
  ++seeks_;
}

StatusWith<bool> IndexScan::DoNext(PlanResult* out) {
  const std::size_t count = options_.bounds.intervals.size();
  while (interval_ < count) {
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
      continue;
    }
    if (++mutable_stats().keys_examined % kKeysPerInterruptCheck == 0 && interrupt_ != nullptr) {
      QUARRY_RETURN_IF_ERROR(interrupt_->Check());
    }
    returned_current_ = true;  // consumed: the next call moves past it
    if (options_.multikey) {
      ++dups_tested_;
      if (!seen_.emplace(cursor_->id_key()).second) {
        ++dups_dropped_;
        continue;
      }
    }
    out->owned.reset();  // field by field: see Fetch::DoNext
    out->doc = bson::DocumentView();
    out->details = query::MatchDetails();
    out->id_key = cursor_->id_key();
    out->index_key = cursor_->key();
    return true;
  }
  return false;
}

void IndexScan::Save() {
  // Between calls the cursor rests on the entry handed up last: resume after it.
  if (cursor_ != nullptr && returned_current_ && cursor_->Valid()) {
    resume_after_ = std::string(cursor_->entry_key());
  }
  cursor_.reset();
}

Status IndexScan::Restore() {
  // Open() on the next DoNext resumes after resume_after_ (or at the interval's start).
  returned_current_ = false;
  return Status::OK();
}

void IndexScan::ExplainDetails(bson::DocumentBuilder* b) const {
  b->AppendDocument("keyPattern", options_.key_pattern);
  b->AppendString("indexName", options_.name);
  if (options_.parsed != nullptr) {
    // mongod shows the collation of an index that has one, fully specified as stored.
    bson::ValueView collation = options_.parsed->descriptor.spec().Get("collation");
    if (collation.type() == bson::Type::kDocument) {
      b->AppendDocument("collation", collation.Document());
    }
  }
  b->AppendBool("isMultiKey", options_.multikey);
  b->AppendBool("isUnique", options_.unique);
  b->AppendBool("isSparse", options_.sparse);
  b->AppendBool("isPartial", options_.partial);
  b->AppendInt32("indexVersion", 2);
  b->AppendString("direction", forward() ? "forward" : "backward");
  b->AppendDocument("indexBounds", options_.bounds.ToExplain());
}

void IndexScan::ExplainStats(bson::DocumentBuilder* b) const {
  b->AppendInt64("seeks", seeks_);
  b->AppendInt64("dupsTested", dups_tested_);
  b->AppendInt64("dupsDropped", dups_dropped_);
}

}  // namespace quarry::exec
