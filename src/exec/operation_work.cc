#include "exec/operation_work.h"

namespace quarry::exec {

OperationWork& ThisThreadWork() {
  thread_local OperationWork work;
  return work;
}

std::string PlanSummary(const PlanStage& root) {
  std::string out;
  root.AppendSummary(&out);
  return out;
}

void AppendScanSummary(std::string_view stage, const bson::DocumentView& key_pattern,
                       std::string* out) {
  out->append(stage);
  out->append(" {");
  bool first = true;
  for (const bson::Element& field : key_pattern) {
    out->append(first ? " " : ", ");
    first = false;
    out->append(field.key);
    out->append(": ");
    out->append(field.value.ToJson());
  }
  out->append(" }");
}

void NotePlanRan(const PlanStage& root) {
  std::string& summary = ThisThreadWork().plan_summary;
  summary.clear();
  root.AppendSummary(&summary);
}

}  // namespace quarry::exec
