#include "exec/plan_executor.h"

#include "exec/operation_work.h"

namespace quarry::exec {

PlanExecutor::PlanExecutor(std::unique_ptr<PlanStage> root, bool tailable)
    : root_(std::move(root)), tailable_(tailable) {}

StatusWith<query::Batch> PlanExecutor::NextBatch(std::size_t max_docs, std::size_t max_bytes) {
  if (exhausted() || max_docs == 0) return query::Batch{};
  if (tailable_) exhausted_ = false;  // the plan reads on from its end
  Status restored = root_->Restore();
  StatusWith<query::Batch> batch = restored.ok() ? Fill(max_docs, max_bytes) : restored;
  root_->Save();
  NotePlanRan(*root_);
  if (!batch.ok()) {
    exhausted_ = true;
    failed_ = true;
    pending_.reset();
  }
  return batch;
}

StatusWith<query::Batch> PlanExecutor::Fill(std::size_t max_docs, std::size_t max_bytes) {
  query::Batch batch;
  std::size_t reply_bytes = 0;
  while (true) {
    std::optional<bson::Document> doc = std::move(pending_);
    pending_.reset();
    if (!doc.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(doc, Pull());
      if (!doc.has_value()) return batch;
    }
    const std::size_t cost = doc->size() + query::BatchElementOverhead(batch.documents.size());
    const bool full = batch.documents.size() >= max_docs ||
                      (!batch.documents.empty() && reply_bytes + cost > max_bytes);
    if (full) {
      pending_ = std::move(doc);
      return batch;
    }
    reply_bytes += cost;
    batch.bytes += doc->size();
    batch.documents.push_back(std::move(*doc));
  }
}

StatusWith<std::optional<bson::Document>> PlanExecutor::Pull() {
  if (exhausted_) return std::optional<bson::Document>();
  PlanResult result;
  QUARRY_ASSIGN_OR_RETURN(bool more, root_->Next(&result));
  if (!more) {
    exhausted_ = true;
    return std::optional<bson::Document>();
  }
  if (result.owned.has_value()) return std::move(result.owned);
  return std::optional<bson::Document>(bson::Document::Copy(result.doc));
}

Status ForEachPlanResult(PlanStage& root, const std::function<bool(const PlanResult&)>& visit) {
  PlanResult result;
  Status status = Status::OK();
  while (true) {
    StatusWith<bool> more = root.Next(&result);
    if (!more.ok()) status = more.status();
    if (!more.ok() || !more.value() || !visit(result)) break;
  }
  NotePlanRan(root);
  return status;
}

Status ForEachResult(
    PlanStage& root,
    const std::function<bool(bson::DocumentView, const query::MatchDetails&)>& visit) {
  return ForEachPlanResult(
      root, [&](const PlanResult& result) { return visit(result.doc, result.details); });
}

}  // namespace quarry::exec
