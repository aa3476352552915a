#include "exec/stages/unique_point.h"

#include "exec/index_usage.h"
#include "exec/stages/point_record.h"

namespace quarry::exec {

UniqueIndexPoint::UniqueIndexPoint(const storage::IndexStore* indexes,
                                   const storage::RecordStore* records,
                                   storage::CollectionId collection, Target target,
                                   std::optional<query::Matcher> filter, bool want_match_details)
    : indexes_(indexes),
      records_(records),
      collection_(collection),
      target_(std::move(target)),
      filter_(std::move(filter)),
      want_match_details_(want_match_details) {}

StatusWith<WorkState> UniqueIndexPoint::DoWork(PlanResult* out) {
  if (done_) return WorkState::kEof;
  done_ = true;
  RecordIndexUse(target_.index);
  std::string id_key;
  {
    const std::unique_ptr<storage::IndexCursor> entry =
        indexes_->Lookup(target_.index, target_.key);
    if (!entry->Valid()) {
      QUARRY_RETURN_IF_ERROR(entry->status());
      return WorkState::kEof;
    }
    ++mutable_stats().keys_examined;
    id_key = entry->id_key();
  }
  // A record deleted since its entry was read is not found.
  QUARRY_ASSIGN_OR_RETURN(bool found, ReadPointRecord(*records_, collection_, id_key, filter_,
                                                      want_match_details_, &mutable_stats(), out));
  return found ? WorkState::kAdvanced : WorkState::kEof;
}

void UniqueIndexPoint::AppendLeafSummary(std::string* out) const {
  out->append(target_.parsed->scan_summary);
}

}  // namespace quarry::exec
