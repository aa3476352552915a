#include "exec/stages/sort_merge.h"

#include <algorithm>
#include <utility>

#include "exec/explain_count.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

// As often as a scan checks its keys.
constexpr std::int64_t kResultsPerInterruptCheck = 256;

void AppendInverted(std::string_view bytes, std::string* out) {
  for (char c : bytes) out->push_back(static_cast<char>(~static_cast<unsigned char>(c)));
}

}  // namespace

MergeKey MergeKeyOf(const MergeKeyLayout& layout, std::string_view index_key) {
  std::vector<std::string_view> segments;
  segments.reserve(layout.stored_descending.size());
  std::string_view rest = index_key;
  for (const bool descending : layout.stored_descending) {
    const std::size_t length = storage::EncodedLength(rest, descending);
    if (length == 0) return {};
    segments.push_back(rest.substr(0, length));
    rest.remove_prefix(length);
  }
  // Each field in the sort's direction: encodings (inverted or not) are self-delimiting, so
  // their concatenation compares field by field, as compound index keys do.
  MergeKey key;
  for (const MergeKeyLayout::SortField& field : layout.sort_fields) {
    const std::string_view segment = segments[field.position];
    if (layout.stored_descending[field.position] == field.descending) {
      key.sort.append(segment);
    } else {
      AppendInverted(segment, &key.sort);
    }
  }
  key.rest_offset = index_key.size() - rest.size();
  return key;
}

SortMergeStage::SortMergeStage(std::vector<std::unique_ptr<PlanStage>> children,
                               std::vector<MergeKeyLayout> layouts, bool backward,
                               bson::Document sort_pattern,
                               std::shared_ptr<const Interrupt> interrupt)
    : PlanStage(std::move(children)),
      layouts_(std::move(layouts)),
      backward_(backward),
      sort_pattern_(std::move(sort_pattern)),
      interrupt_(std::move(interrupt)),
      pending_(this->children().size()) {}

bool SortMergeStage::After(std::size_t a, std::size_t b) const {
  const Pending& first = pending_[a];
  const Pending& second = pending_[b];
  const int by_key = first.merge_key.sort.compare(second.merge_key.sort);
  if (by_key != 0) return by_key > 0;
  // Within one scan, entries the sort finds equal follow the rest of their key, then (in a
  // non-unique index) their id key, in the scan's direction; across scans, the same.
  int by_rest =
      std::string_view(first.index_key)
          .substr(first.merge_key.rest_offset)
          .compare(std::string_view(second.index_key).substr(second.merge_key.rest_offset));
  if (by_rest == 0) by_rest = first.id_key.compare(second.id_key);
  if (by_rest != 0) return backward_ ? by_rest < 0 : by_rest > 0;
  return a > b;
}

StatusWith<bool> SortMergeStage::Pull(std::size_t child_idx) {
  PlanResult result;
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child(child_idx).Work(&result));
  if (state == WorkState::kEof) return true;
  if (state == WorkState::kNeedTime) return false;
  if (++dups_tested_ % kResultsPerInterruptCheck == 0 && interrupt_ != nullptr) {
    QUARRY_RETURN_IF_ERROR(interrupt_->Check());
  }
  // Overlapping scans (two $or branches, or a record whose keys moved between batches) may
  // meet a record twice: the first one met is kept, and FETCH reads it once.
  if (!seen_.emplace(result.id_key).second) {
    ++dups_dropped_;
    return false;
  }
  Pending& pending = pending_[child_idx];
  pending.merge_key = MergeKeyOf(layouts_[child_idx], result.index_key);
  pending.id_key.assign(result.id_key);
  pending.index_key.assign(result.index_key);
  pending.doc = std::move(result.owned);  // a covered scan's; FETCH reads the others later
  pending.details = std::move(result.details);
  heap_.push_back(child_idx);
  std::push_heap(heap_.begin(), heap_.end(),
                 [this](std::size_t a, std::size_t b) { return After(a, b); });
  return true;
}

StatusWith<WorkState> SortMergeStage::DoWork(PlanResult* out) {
  // Every child must offer its first result before the smallest is known.
  if (primed_ < children().size()) {
    QUARRY_ASSIGN_OR_RETURN(bool done, Pull(primed_));
    if (done) ++primed_;
    return WorkState::kNeedTime;
  }
  if (refill_.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(bool done, Pull(*refill_));
    if (done) refill_.reset();
    return WorkState::kNeedTime;
  }
  if (heap_.empty()) return WorkState::kEof;
  std::pop_heap(heap_.begin(), heap_.end(),
                [this](std::size_t a, std::size_t b) { return After(a, b); });
  const std::size_t smallest = heap_.back();
  heap_.pop_back();
  Pending& pending = pending_[smallest];
  out->owned.reset();  // field by field: see Fetch::DoWork
  out->doc = bson::DocumentView();
  if (pending.doc.has_value()) out->Own(std::move(*pending.doc));
  out->details = std::move(pending.details);
  out->id_key = pending.id_key;
  out->index_key = pending.index_key;
  refill_ = smallest;  // its next result is needed before the next smallest is known
  return WorkState::kAdvanced;
}

void SortMergeStage::ExplainDetails(bson::DocumentBuilder* b) const {
  b->AppendDocument("sortPattern", sort_pattern_);
}

void SortMergeStage::ExplainStats(bson::DocumentBuilder* b) const {
  AppendCount(b, "dupsTested", dups_tested_);
  AppendCount(b, "dupsDropped", dups_dropped_);
}

}  // namespace quarry::exec
