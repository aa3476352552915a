#include "exec/stages/fetch.h"

namespace quarry::exec {

Fetch::Fetch(std::unique_ptr<PlanStage> child, const storage::RecordStore* records,
             storage::CollectionId collection, std::optional<query::Matcher> filter,
             bool want_match_details)
    : PlanStage(std::move(child)),
      records_(records),
      collection_(collection),
      filter_(std::move(filter)),
      want_match_details_(want_match_details) {}

StatusWith<WorkState> Fetch::DoWork(PlanResult* out) {
  PlanResult entry;
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(&entry));
  if (state != WorkState::kAdvanced) return state;
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> doc,
                          records_->FindByIdKey(collection_, entry.id_key));
  if (!doc.has_value()) return WorkState::kNeedTime;  // deleted since its entry was read
  ++mutable_stats().docs_examined;
  // Field by field rather than `*out = PlanResult()`, which GCC 12 under ASan flags as reading
  // the temporary's uninitialized optional.
  out->owned.reset();
  out->doc = bson::DocumentView();
  out->details = query::MatchDetails();
  out->id_key = {};
  out->index_key = {};
  if (filter_.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(bool matched,
                            filter_->Evaluate(*doc, want_match_details_ ? &out->details : nullptr));
    if (!matched) return WorkState::kNeedTime;
  }
  out->Own(std::move(*doc));
  return WorkState::kAdvanced;
}

void Fetch::ExplainDetails(bson::DocumentBuilder* b) const {
  if (filter_.has_value()) b->AppendDocument("filter", filter_->filter());
}

}  // namespace quarry::exec
