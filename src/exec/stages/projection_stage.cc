#include "exec/stages/projection_stage.h"

namespace quarry::exec {

StatusWith<bool> ProjectionStage::DoNext(PlanResult* out) {
  QUARRY_ASSIGN_OR_RETURN(bool more, child().Next(out));
  if (!more) return false;
  QUARRY_ASSIGN_OR_RETURN(bson::Document shaped, projection_.Apply(out->doc, &out->details));
  out->Own(std::move(shaped));
  return true;
}

}  // namespace quarry::exec
