#include "exec/stages/or_stage.h"

namespace quarry::exec {

StatusWith<bool> OrStage::DoNext(PlanResult* out) {
  while (branch_ < children().size()) {
    QUARRY_ASSIGN_OR_RETURN(bool more, child(branch_).Next(out));
    if (!more) {
      ++branch_;
      continue;
    }
    ++dups_tested_;
    // A record may match several branches: FETCH must see it once, or it is returned twice.
    if (!seen_.emplace(out->id_key).second) {
      ++dups_dropped_;
      continue;
    }
    return true;
  }
  return false;
}

void OrStage::ExplainStats(bson::DocumentBuilder* b) const {
  b->AppendInt64("dupsTested", dups_tested_);
  b->AppendInt64("dupsDropped", dups_dropped_);
}

}  // namespace quarry::exec
