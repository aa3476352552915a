#include "exec/stages/sort_stage.h"

#include "exec/explain_count.h"
#include "exec/operation_work.h"
#include "query/spill/spill_stats.h"

namespace quarry::exec {
namespace {

// A result's match details travel beside it through the sort (and through its runs on disk).
bson::Document DetailsDocument(const query::MatchDetails& details) {
  bson::DocumentBuilder b;
  if (details.array_index.has_value()) {
    b.AppendInt64("arrayIndex", static_cast<std::int64_t>(*details.array_index));
  }
  return std::move(b).Finish();
}

query::MatchDetails DetailsOf(const bson::Document& doc) {
  query::MatchDetails details;
  bson::ValueView index = doc.Get("arrayIndex");
  if (index.IsNumber()) details.array_index = static_cast<std::size_t>(index.AsInt64());
  return details;
}

query::SorterOptions OptionsFor(std::int64_t limit, const SortMemory& memory) {
  query::SorterOptions options;
  options.max_memory_bytes = memory.max_bytes;
  options.limit = limit > 0 ? static_cast<std::size_t>(limit) : 0;
  options.spill_dir = memory.spill_dir;
  options.counters = &query::SortSpillCounters();
  return options;
}

}  // namespace

SortStage::SortStage(std::unique_ptr<PlanStage> child, query::SortSpec sort, std::int64_t limit,
                     SortMemory memory)
    : PlanStage(std::move(child)),
      sort_(std::move(sort)),
      limit_(limit),
      memory_(std::move(memory)),
      sorter_(std::make_unique<query::ExternalSorter>(sort_, OptionsFor(limit_, memory_))) {}

StatusWith<WorkState> SortStage::DoWork(PlanResult* out) {
  if (sorter_ == nullptr) return WorkState::kEof;
  ThisThreadWork().has_sort_stage = true;
  if (!loaded_) {
    StatusWith<WorkState> loading = LoadOne();
    if (!loading.ok()) {
      spilled_ = sorter_->spill_stats();
      sorter_.reset();  // removes any run it wrote
    }
    return loading;
  }
  query::ExternalSorter::Item item;
  StatusWith<bool> more = sorter_->Next(&item);
  if (!more.ok() || !more.value()) {
    // The runs go as soon as the last result is out, not when the cursor is closed.
    spilled_ = sorter_->spill_stats();
    bytes_sorted_ = sorter_->bytes_sorted();
    sorter_.reset();
    if (!more.ok()) return more.status();
    return WorkState::kEof;
  }
  out->details = DetailsOf(item.extra);
  out->Own(std::move(item.doc));
  return WorkState::kAdvanced;
}

StatusWith<WorkState> SortStage::LoadOne() {
  PlanResult result;
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(&result));
  if (state == WorkState::kEof) {
    loaded_ = true;
    QUARRY_RETURN_IF_ERROR(sorter_->Finish());
    return WorkState::kNeedTime;  // the results come from the next units
  }
  if (state == WorkState::kNeedTime) return state;
  bson::Document doc =
      result.owned.has_value() ? std::move(*result.owned) : bson::Document::Copy(result.doc);
  QUARRY_RETURN_IF_ERROR(sorter_->Add(std::move(doc), DetailsDocument(result.details)));
  return WorkState::kNeedTime;
}

void SortStage::ExplainDetails(bson::DocumentBuilder* b) const {
  b->OpenDocument("sortPattern");
  for (const query::SortField& field : sort_.fields()) {
    b->AppendInt32(field.path.dotted(), field.ascending ? 1 : -1);
  }
  b->Close();
  AppendCount(b, "memLimit", static_cast<std::int64_t>(memory_.max_bytes));
  if (limit_ > 0) AppendCount(b, "limitAmount", limit_);
  b->AppendString("type", "simple");
}

void SortStage::ExplainStats(bson::DocumentBuilder* b) const {
  const query::SpillStats& spilled = sorter_ != nullptr ? sorter_->spill_stats() : spilled_;
  const std::uint64_t sorted = sorter_ != nullptr ? sorter_->bytes_sorted() : bytes_sorted_;
  AppendCount(b, "totalDataSizeSorted", static_cast<std::int64_t>(sorted));
  b->AppendBool("usedDisk", spilled.used_disk());
  AppendCount(b, "spills", spilled.spills);
  AppendCount(b, "spilledDataStorageSize", spilled.spilled_bytes);
}

}  // namespace quarry::exec
