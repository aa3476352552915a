// RETURN_KEY: find's returnKey. Each result becomes the key of the index entry that led the plan
// to it, as {field path: value} in key pattern order; {_id: ...} when the plan read by _id, {}
// after a collection scan.
#pragma once

#include <vector>

#include "exec/stages/index_scan.h"
#include "exec/stages/plan_stage.h"

namespace quarry::exec {

class ReturnKeyStage final : public PlanStage {
 public:
  // `scans`: the plan's index scans, in the order the plan reads them (several under an OR);
  // they live in the plan below this stage. `by_id`: the plan reads by _id (IDHACK, or the _id
  // index hinted). `show_record_id`: each key ends with the record's "$recordId"
  // (show_record_id.h).
  ReturnKeyStage(std::unique_ptr<PlanStage> child, std::vector<const IndexScan*> scans, bool by_id,
                 bool show_record_id = false)
      : PlanStage(std::move(child)),
        scans_(std::move(scans)),
        by_id_(by_id),
        show_record_id_(show_record_id) {}

  std::string_view name() const override { return "RETURN_KEY"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  // The key that led the plan to `doc`.
  StatusWith<bson::Document> KeyOf(bson::DocumentView doc) const;

  std::vector<const IndexScan*> scans_;
  bool by_id_;
  bool show_record_id_;
};

}  // namespace quarry::exec
