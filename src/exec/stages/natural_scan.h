// COLLSCAN of a capped collection: its records in natural (insertion) order, or its reverse,
// read through the natural-order index (exec/capped.h), filtered.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/interrupt.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/index_store.h"
#include "storage/record_store.h"

namespace quarry::exec {

class NaturalScan final : public PlanStage {
 public:
  struct Options {
    storage::CollectionId collection = 0;
    storage::IndexId natural_order_index = 0;
    storage::ScanDirection direction = storage::ScanDirection::kForward;
    std::optional<query::Matcher> filter;  // none: every record
    bool want_match_details = false;       // a positional projection reads them
    // A tailable cursor's scan: at the end it waits for records inserted later, which Restore
    // (the next getMore) makes it read.
    bool tailable = false;
  };

  NaturalScan(const storage::IndexStore* indexes, const storage::RecordStore* records,
              std::shared_ptr<const Interrupt> interrupt, Options options);

  void Save() override { cursor_.reset(); }
  Status Restore() override;
  std::string_view name() const override { return "COLLSCAN"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;
  // CappedPositionLost unless the entry last examined is still there: its record was evicted or
  // deleted since, and the scan cannot tell what else it missed (as in mongod).
  Status CheckPositionKept() const;

  const storage::IndexStore* indexes_;
  const storage::RecordStore* records_;
  std::shared_ptr<const Interrupt> interrupt_;
  Options options_;
  std::unique_ptr<storage::IndexCursor> cursor_;
  bool on_returned_entry_ = false;   // the cursor is still on the entry last examined
  std::string resume_after_;         // whole key of the last entry examined
  std::string resume_position_;      // its position (8 bytes)
  bool resume_record_seen_ = false;  // its record was there when examined
  bool done_ = false;
};

}  // namespace quarry::exec
