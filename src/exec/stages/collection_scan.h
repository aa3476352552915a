// COLLSCAN: a collection's records in _id order (or its reverse), filtered.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/interrupt.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/record_store.h"

namespace quarry::exec {

class CollectionScan final : public PlanStage {
 public:
  struct Options {
    storage::CollectionId collection = 0;
    storage::ScanDirection direction = storage::ScanDirection::kForward;
    std::optional<query::Matcher> filter;  // none: every record
    bool want_match_details = false;       // a positional projection reads them
    // find's min and max on the _id index (forward only): the records whose encoded _id
    // (storage::EncodeIdKey) lies in [min_id_key, max_id_key); empty: no such limit. Explain
    // shows them as mongod shows a clustered collection's: minRecord and maxRecord, the _id
    // values `id_range` holds ({min: ..., max: ...}, either absent).
    std::string min_id_key;
    std::string max_id_key;
    bson::Document id_range;
  };

  CollectionScan(const storage::RecordStore* records, std::shared_ptr<const Interrupt> interrupt,
                 Options options);

  void Save() override { cursor_.reset(); }
  Status Restore() override { return Status::OK(); }  // the cursor reopens on demand
  std::string_view name() const override { return "COLLSCAN"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;

  const storage::RecordStore* records_;
  std::shared_ptr<const Interrupt> interrupt_;
  Options options_;
  std::unique_ptr<storage::RecordCursor> cursor_;
  bool on_returned_record_ = false;  // the cursor is still on the record last returned
  std::string resume_after_;         // id key of the last record read
  bool done_ = false;
};

}  // namespace quarry::exec
