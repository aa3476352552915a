#include "exec/stages/sort_stage.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "exec/explain_count.h"

namespace quarry::exec {
namespace {

// Bookkeeping bytes charged per buffered document on top of its BSON, so that many tiny
// documents still count against the memory limit.
constexpr std::size_t kBufferedOverhead = 64;

Status SortMemoryExceeded(std::size_t limit) {
  return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                "Sort exceeded memory limit of " + std::to_string(limit) +
                    " bytes, but did not opt in to external sorting. Aborting operation. Pass "
                    "allowDiskUse:true to opt in.");
}

}  // namespace

SortStage::SortStage(std::unique_ptr<PlanStage> child, query::SortSpec sort, std::int64_t limit,
                     std::size_t max_bytes)
    : PlanStage(std::move(child)),
      sort_(std::move(sort)),
      keep_(limit > 0 ? static_cast<std::size_t>(limit) : std::numeric_limits<std::size_t>::max()),
      max_bytes_(max_bytes) {}

StatusWith<WorkState> SortStage::DoWork(PlanResult* out) {
  if (!loaded_) {
    StatusWith<WorkState> loading = LoadOne();
    if (!loading.ok()) {
      buffered_.clear();
      next_ = 0;
    }
    return loading;
  }
  if (next_ >= buffered_.size()) {
    buffered_.clear();
    buffered_.shrink_to_fit();
    next_ = 0;
    return WorkState::kEof;
  }
  Buffered& item = buffered_[next_++];
  out->details = item.details;
  out->Own(std::move(item.doc));
  return WorkState::kAdvanced;
}

StatusWith<WorkState> SortStage::LoadOne() {
  PlanResult result;
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(&result));
  if (state == WorkState::kEof) {
    loaded_ = true;
    SortAndTrim();
    return WorkState::kNeedTime;  // the results come from the next units
  }
  if (state == WorkState::kNeedTime) return state;
  bson::Document doc =
      result.owned.has_value() ? std::move(*result.owned) : bson::Document::Copy(result.doc);
  buffered_bytes_ += doc.size() + kBufferedOverhead;
  buffered_.push_back(Buffered{std::move(doc), result.details});
  // With a limit only the first `keep_` in sort order can be returned: keep at most about
  // twice that many, pruning as we go, so memory stays bounded.
  const bool bounded = keep_ != std::numeric_limits<std::size_t>::max();
  if (bounded && buffered_.size() >= 2 * keep_ + 16) SortAndTrim();
  if (buffered_bytes_ > max_bytes_) return SortMemoryExceeded(max_bytes_);
  return WorkState::kNeedTime;
}

void SortStage::SortAndTrim() {
  std::vector<query::SortKey> keys;
  keys.reserve(buffered_.size());
  for (const Buffered& item : buffered_) keys.push_back(sort_.MakeKey(item.doc.view()));
  std::vector<std::size_t> order(buffered_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return sort_.CompareKeys(keys[a], keys[b]) < 0;
  });
  std::vector<Buffered> sorted;
  sorted.reserve(std::min(order.size(), keep_));
  buffered_bytes_ = 0;
  for (std::size_t index : order) {
    if (sorted.size() >= keep_) break;
    buffered_bytes_ += buffered_[index].doc.size() + kBufferedOverhead;
    sorted.push_back(std::move(buffered_[index]));
  }
  buffered_ = std::move(sorted);
}

void SortStage::ExplainDetails(bson::DocumentBuilder* b) const {
  b->OpenDocument("sortPattern");
  for (const query::SortField& field : sort_.fields()) {
    b->AppendInt32(field.path.dotted(), field.ascending ? 1 : -1);
  }
  b->Close();
  AppendCount(b, "memLimit", static_cast<std::int64_t>(max_bytes_));
  if (keep_ != std::numeric_limits<std::size_t>::max()) {
    AppendCount(b, "limitAmount", static_cast<std::int64_t>(keep_));
  }
  b->AppendString("type", "simple");
}

}  // namespace quarry::exec
