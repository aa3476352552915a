// FETCH: reads the record each index entry points to and keeps it when it matches the whole
// filter (the bounds may be wider than the filter, and the record may have changed since the
// entry was read).
#pragma once

#include <optional>

#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/record_store.h"

namespace quarry::exec {

class Fetch final : public PlanStage {
 public:
  Fetch(std::unique_ptr<PlanStage> child, const storage::RecordStore* records,
        storage::CollectionId collection, std::optional<query::Matcher> filter,
        bool want_match_details);

  std::string_view name() const override { return "FETCH"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;

  const storage::RecordStore* records_;
  storage::CollectionId collection_;
  std::optional<query::Matcher> filter_;
  bool want_match_details_;
};

}  // namespace quarry::exec
