// DISTINCT_SCAN: for distinct on an index's first key field, one entry per distinct value of
// that field: after each entry it hands up, it seeks past every other entry with the same
// first field, so it reads about as many keys as there are values, not documents. Each result
// is the document its entry's key values stand for (key_values.h), or its record when the
// entry keeps none. Only a non-multikey index qualifies, whose entries hold one value each.
#pragma once

#include <memory>
#include <string>

#include "base/interrupt.h"
#include "exec/stages/index_scan.h"
#include "exec/stages/plan_stage.h"
#include "query/match/field_path.h"
#include "storage/index_store.h"
#include "storage/record_store.h"

namespace quarry::exec {

struct DistinctScanOptions {
  // The index and bounds, forward; `filter`, `records` and `collection` as for a covered read.
  IndexScanOptions scan;
  // The first key field's path: an entry is handed up only when its document has a value there
  // (distinct skips missing fields, which the index keeps as null) and matches the filter.
  query::FieldPath field;
};

class DistinctScan final : public PlanStage {
 public:
  DistinctScan(const storage::IndexStore* indexes, std::shared_ptr<const Interrupt> interrupt,
               DistinctScanOptions options);

  std::string_view name() const override { return "DISTINCT_SCAN"; }
  void Save() override { cursor_.reset(); }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;
  void AppendLeafSummary(std::string* out) const override;
  // The document the current entry stands for; nullopt when its record is gone.
  StatusWith<std::optional<bson::Document>> CurrentDocument();
  // The current entry's encoded first key field.
  std::string FirstFieldOf(std::string_view key) const;

  const storage::IndexStore* indexes_;
  std::shared_ptr<const Interrupt> interrupt_;
  DistinctScanOptions options_;
  std::size_t interval_ = 0;
  std::unique_ptr<storage::IndexCursor> cursor_;
  std::string last_value_;  // the first field of the entry handed up last in this interval
};

}  // namespace quarry::exec
