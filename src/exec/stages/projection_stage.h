// PROJECTION_DEFAULT (PROJECTION_COVERED over index key values): each result of its child
// reshaped by a find projection.
#pragma once

#include "exec/stages/plan_stage.h"
#include "query/projection/projection.h"

namespace quarry::exec {

class ProjectionStage final : public PlanStage {
 public:
  // `covered`: the child hands up documents made of index key values (covered_read.h).
  // `show_record_id`: each result ends with the record's "$recordId" (show_record_id.h).
  ProjectionStage(std::unique_ptr<PlanStage> child, query::Projection projection,
                  bool covered = false, bool show_record_id = false)
      : PlanStage(std::move(child)),
        projection_(std::move(projection)),
        covered_(covered),
        show_record_id_(show_record_id) {}
  std::string_view name() const override {
    return covered_ ? "PROJECTION_COVERED" : "PROJECTION_DEFAULT";
  }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;

  query::Projection projection_;
  bool covered_ = false;
  bool show_record_id_ = false;
};

}  // namespace quarry::exec
