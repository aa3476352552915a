#include "exec/stages/or_stage.h"

#include "exec/explain_count.h"

namespace quarry::exec {

StatusWith<WorkState> OrStage::DoWork(PlanResult* out) {
  if (branch_ >= children().size()) return WorkState::kEof;
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child(branch_).Work(out));
  if (state == WorkState::kEof) {
    ++branch_;
    return branch_ < children().size() ? WorkState::kNeedTime : WorkState::kEof;
  }
  if (state == WorkState::kNeedTime) return state;
  ++dups_tested_;
  // A record may match several branches: FETCH must see it once, or it is returned twice.
  if (!seen_.emplace(out->id_key).second) {
    ++dups_dropped_;
    return WorkState::kNeedTime;
  }
  return WorkState::kAdvanced;
}

void OrStage::ExplainStats(bson::DocumentBuilder* b) const {
  AppendCount(b, "dupsTested", dups_tested_);
  AppendCount(b, "dupsDropped", dups_dropped_);
}

}  // namespace quarry::exec
