#include "exec/stages/limit_skip.h"

namespace quarry::exec {

StatusWith<WorkState> LimitStage::DoWork(PlanResult* out) {
  if (returned_ >= limit_) return WorkState::kEof;
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(out));
  if (state == WorkState::kAdvanced) ++returned_;
  return state;
}

StatusWith<WorkState> SkipStage::DoWork(PlanResult* out) {
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(out));
  if (state == WorkState::kAdvanced && skipped_ < skip_) {
    ++skipped_;
    return WorkState::kNeedTime;
  }
  return state;
}

}  // namespace quarry::exec
