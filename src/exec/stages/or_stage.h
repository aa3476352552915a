// OR: the records of several index scans, one branch of a top-level $or each, handed up once
// each however many branches (or array elements) lead to them, for FETCH to read and filter.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "exec/stages/plan_stage.h"

namespace quarry::exec {

class OrStage final : public PlanStage {
 public:
  // REQUIRES: each child hands up id_key (an IXSCAN).
  explicit OrStage(std::vector<std::unique_ptr<PlanStage>> branches)
      : PlanStage(std::move(branches)) {}

  std::string_view name() const override { return "OR"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainStats(bson::DocumentBuilder* b) const override;

  std::size_t branch_ = 0;                // the branches done
  std::unordered_set<std::string> seen_;  // records handed up
  std::int64_t dups_tested_ = 0;
  std::int64_t dups_dropped_ = 0;
};

}  // namespace quarry::exec
