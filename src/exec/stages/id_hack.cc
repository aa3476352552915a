#include "exec/stages/id_hack.h"

#include "exec/index_usage.h"

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
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> doc,
                          records_->FindByIdKey(collection_, id_key_));
  if (!doc.has_value()) return WorkState::kEof;
  ++mutable_stats().docs_examined;
  out->details = query::MatchDetails();
  if (filter_.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(bool matched,
                            filter_->Evaluate(*doc, want_match_details_ ? &out->details : nullptr));
    if (!matched) return WorkState::kEof;
  }
  out->Own(std::move(*doc));
  return WorkState::kAdvanced;
}

void IdHack::ExplainDetails(bson::DocumentBuilder* b) const {
  if (filter_.has_value()) b->AppendDocument("filter", filter_->filter());
}

}  // namespace quarry::exec
