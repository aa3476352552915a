// Runs a plan for a client cursor: batches within the reply limits, with the plan's storage
// iterators let go between batches.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "base/status.h"
#include "exec/stages/plan_stage.h"
#include "query/cursor_source.h"

namespace quarry::exec {

class PlanExecutor final : public query::CursorSource {
 public:
  // `tailable`: the plan's end is where the next batch goes on from (a tailable cursor's scan
  // restores past it), so only an error exhausts it.
  explicit PlanExecutor(std::unique_ptr<PlanStage> root, bool tailable = false);

  // Reads on until the batch is full, then one result further, so that the cursor can close
  // with the last batch; that result is kept for the next batch. Not thread-safe: one caller
  // at a time (CursorManager ensures it).
  StatusWith<query::Batch> NextBatch(std::size_t max_docs, std::size_t max_bytes) override;
  bool exhausted() const override {
    return failed_ || (!tailable_ && exhausted_ && !pending_.has_value());
  }

  const PlanStage& root() const { return *root_; }

 private:
  StatusWith<query::Batch> Fill(std::size_t max_docs, std::size_t max_bytes);
  // The next result as an owned document, or nullopt at the end.
  StatusWith<std::optional<bson::Document>> Pull();

  std::unique_ptr<PlanStage> root_;
  std::optional<bson::Document> pending_;  // read, not yet returned
  bool exhausted_ = false;                 // the plan has reached its end
  bool tailable_ = false;
  bool failed_ = false;  // an error ended it for good
};

// Calls `visit` with each result of `root` (the document is valid during the call), until
// `visit` returns false or the results end.
Status ForEachResult(
    PlanStage& root,
    const std::function<bool(bson::DocumentView, const query::MatchDetails&)>& visit);
// The same with each whole result, for callers that read more than the document (a score).
Status ForEachPlanResult(PlanStage& root, const std::function<bool(const PlanResult&)>& visit);

}  // namespace quarry::exec
