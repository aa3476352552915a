// PROJECTION_DEFAULT: each result of its child reshaped by a find projection.
#pragma once

#include "exec/stages/plan_stage.h"
#include "query/projection/projection.h"

namespace quarry::exec {

class ProjectionStage final : public PlanStage {
 public:
  ProjectionStage(std::unique_ptr<PlanStage> child, query::Projection projection)
      : PlanStage(std::move(child)), projection_(std::move(projection)) {}
  std::string_view name() const override { return "PROJECTION_DEFAULT"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;

  query::Projection projection_;
};

}  // namespace quarry::exec
