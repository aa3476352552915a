#include "exec/stages/show_record_id.h"

#include <utility>

#include "bson/builder.h"

namespace quarry::exec {

bson::Document RecordIdOf(bson::DocumentView doc) {
  bson::DocumentBuilder b;
  b.Append("$recordId", doc.Get("_id"));
  return std::move(b).Finish();
}

bson::Document WithRecordId(bson::DocumentView shaped, const bson::Document& record_id) {
  bson::DocumentBuilder b;
  b.AppendElements(shaped);
  b.AppendElements(record_id.view());
  return std::move(b).Finish();
}

StatusWith<WorkState> ShowRecordIdStage::DoWork(PlanResult* out) {
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(out));
  if (state != WorkState::kAdvanced) return state;
  out->Own(WithRecordId(out->doc, RecordIdOf(out->doc)));
  return WorkState::kAdvanced;
}

}  // namespace quarry::exec
