#include "exec/stages/plan_stage.h"

#include "exec/explain_count.h"
#include "exec/operation_work.h"

namespace quarry::exec {

StatusWith<bool> PlanStage::Next(PlanResult* out) {
  while (true) {
    QUARRY_ASSIGN_OR_RETURN(WorkState state, Work(out));
    if (state == WorkState::kAdvanced) return true;
    if (state == WorkState::kEof) return false;
  }
}

StatusWith<WorkState> PlanStage::Work(PlanResult* out) {
  ++stats_.works;
  const std::int64_t keys_before = stats_.keys_examined;
  const std::int64_t docs_before = stats_.docs_examined;
  StatusWith<WorkState> state = DoWork(out);
  if (state.ok() && state.value() == WorkState::kAdvanced) ++stats_.advanced;
  // Each stage counts only what it read itself, so the differences add up without overlap.
  OperationWork& work = ThisThreadWork();
  work.keys_examined += stats_.keys_examined - keys_before;
  work.docs_examined += stats_.docs_examined - docs_before;
  return state;
}

void PlanStage::AppendSummary(std::string* out) const {
  if (ExplainsAsChild()) {
    children_.front()->AppendSummary(out);
    return;
  }
  if (children_.empty()) {
    if (!out->empty()) out->append(", ");
    AppendLeafSummary(out);
    return;
  }
  for (const auto& child : children_) child->AppendSummary(out);
}

void PlanStage::Save() {
  for (const auto& child : children_) child->Save();
}

Status PlanStage::Restore() {
  for (const auto& child : children_) QUARRY_RETURN_IF_ERROR(child->Restore());
  return Status::OK();
}

void PlanStage::Explain(bson::DocumentBuilder* b, bool with_stats) const {
  if (ExplainsAsChild()) {
    children_.front()->Explain(b, with_stats);
    return;
  }
  b->AppendString("stage", name());
  ExplainDetails(b);
  if (with_stats) {
    AppendCount(b, "nReturned", stats_.advanced);
    b->AppendInt32("executionTimeMillisEstimate", 0);
    AppendCount(b, "works", stats_.works);
    AppendCount(b, "advanced", stats_.advanced);
    if (stats_.docs_examined > 0 || name() == "COLLSCAN" || name() == "IDHACK" ||
        name() == "FETCH") {
      AppendCount(b, "docsExamined", stats_.docs_examined);
    }
    if (name() == "IXSCAN" || name() == "DISTINCT_SCAN")
      AppendCount(b, "keysExamined", stats_.keys_examined);
    ExplainStats(b);
  }
  if (children_.size() == 1) {
    b->OpenDocument("inputStage");
    children_.front()->Explain(b, with_stats);
    b->Close();
  } else if (children_.size() > 1) {
    b->OpenArray("inputStages");
    for (std::size_t i = 0; i < children_.size(); ++i) {
      b->OpenDocument(std::to_string(i));
      children_[i]->Explain(b, with_stats);
      b->Close();
    }
    b->Close();
  }
}

}  // namespace quarry::exec
