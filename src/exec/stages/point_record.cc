#include "exec/stages/point_record.h"

namespace quarry::exec {

StatusWith<bool> ReadPointRecord(const storage::RecordStore& records,
                                 storage::CollectionId collection, std::string_view id_key,
                                 const std::optional<query::Matcher>& filter,
                                 bool want_match_details, StageStats* stats, PlanResult* out) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> doc,
                          records.FindByIdKey(collection, id_key));
  if (!doc.has_value()) return false;
  ++stats->docs_examined;
  out->details = query::MatchDetails();
  if (filter.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(bool matched,
                            filter->Evaluate(*doc, want_match_details ? &out->details : nullptr));
    if (!matched) return false;
  }
  out->Own(std::move(*doc));
  return true;
}

}  // namespace quarry::exec
