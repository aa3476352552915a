#include "exec/stages/id_hack.h"

#include "exec/index_usage.h"
#include "exec/stages/point_record.h"

namespace quarry::exec {

IdHack::IdHack(const storage::RecordStore* records, storage::CollectionId collection,
               std::string id_key, std::optional<query::Matcher> filter, bool want_match_details)
    : records_(records),
      collection_(collection),
      id_key_(std::move(id_key)),
      filter_(std::move(filter)),
      want_match_details_(want_match_details) {}

StatusWith<WorkState> IdHack::DoWork(PlanResult* out) {
  if (done_) return WorkState::kEof;
  done_ = true;
  RecordIndexUse(IdIndexUsageKey(collection_));
  QUARRY_ASSIGN_OR_RETURN(bool found, ReadPointRecord(*records_, collection_, id_key_, filter_,
                                                      want_match_details_, &mutable_stats(), out));
  return found ? WorkState::kAdvanced : WorkState::kEof;
}

void IdHack::ExplainDetails(bson::DocumentBuilder* b) const {
  if (filter_.has_value()) b->AppendDocument("filter", filter_->filter());
}

}  // namespace quarry::exec
