// LIMIT and SKIP: the first n results of their child, or all but the first n.
#pragma once

#include <cstdint>

#include "exec/stages/plan_stage.h"

namespace quarry::exec {

class LimitStage final : public PlanStage {
 public:
  LimitStage(std::unique_ptr<PlanStage> child, std::int64_t limit)
      : PlanStage(std::move(child)), limit_(limit) {}
  std::string_view name() const override { return "LIMIT"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override {
    b->AppendInt64("limitAmount", limit_);
  }

  std::int64_t limit_;
  std::int64_t returned_ = 0;
};

class SkipStage final : public PlanStage {
 public:
  SkipStage(std::unique_ptr<PlanStage> child, std::int64_t skip)
      : PlanStage(std::move(child)), skip_(skip) {}
  std::string_view name() const override { return "SKIP"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override {
    b->AppendInt64("skipAmount", skip_);
  }

  std::int64_t skip_;
  std::int64_t skipped_ = 0;
};

}  // namespace quarry::exec
