#include "exec/stages/projection_stage.h"

namespace quarry::exec {

StatusWith<WorkState> ProjectionStage::DoWork(PlanResult* out) {
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(out));
  if (state != WorkState::kAdvanced) return state;
  QUARRY_ASSIGN_OR_RETURN(bson::Document shaped, projection_.Apply(out->doc, &out->details));
  out->Own(std::move(shaped));
  return WorkState::kAdvanced;
}

}  // namespace quarry::exec
