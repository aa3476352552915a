#include "exec/stages/limit_skip.h"

namespace quarry::exec {

StatusWith<bool> LimitStage::DoNext(PlanResult* out) {
  if (returned_ >= limit_) return false;
  QUARRY_ASSIGN_OR_RETURN(bool more, child().Next(out));
  if (more) ++returned_;
  return more;
}

StatusWith<bool> SkipStage::DoNext(PlanResult* out) {
  while (skipped_ < skip_) {
    QUARRY_ASSIGN_OR_RETURN(bool more, child().Next(out));
    if (!more) return false;
    ++skipped_;
  }
  return child().Next(out);
}

}  // namespace quarry::exec
