#include "exec/stages/projection_stage.h"

#include "exec/stages/show_record_id.h"

namespace quarry::exec {

StatusWith<WorkState> ProjectionStage::DoWork(PlanResult* out) {
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(out));
  if (state != WorkState::kAdvanced) return state;
  QUARRY_ASSIGN_OR_RETURN(bson::Document shaped, projection_.Apply(out->doc, &out->details));
  if (show_record_id_) shaped = WithRecordId(shaped.view(), RecordIdOf(out->doc));
  out->Own(std::move(shaped));
  return WorkState::kAdvanced;
}

}  // namespace quarry::exec
