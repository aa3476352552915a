// find's showRecordId: "$recordId" after the fields of each result. Records are kept by their
// _id, as a clustered collection's are in mongod, so a record's id is its _id; mongod shows a
// clustered collection's record id as the _id value its key holds.
#pragma once

#include <memory>

#include "bson/value.h"
#include "exec/stages/plan_stage.h"

namespace quarry::exec {

// {"$recordId": <the _id of `doc`>}, taken before a projection or returnKey reshapes `doc`.
bson::Document RecordIdOf(bson::DocumentView doc);

// `shaped` with the field of `record_id` (RecordIdOf) appended.
bson::Document WithRecordId(bson::DocumentView shaped, const bson::Document& record_id);

// Appends "$recordId" to each result of a plan that reshapes none (no projection, no
// returnKey). Stands for its child in explain: mongod shows no stage for it.
class ShowRecordIdStage final : public PlanStage {
 public:
  explicit ShowRecordIdStage(std::unique_ptr<PlanStage> child) : PlanStage(std::move(child)) {}
  std::string_view name() const override { return "SHOW_RECORD_ID"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  bool ExplainsAsChild() const override { return true; }
};

}  // namespace quarry::exec
