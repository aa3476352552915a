// COLLSCAN: a collection's records in _id order (or its reverse), filtered.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/interrupt.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/record_store.h"

namespace quarry::exec {

class CollectionScan final : public PlanStage {
 public:
  // Encoded _ids in [min, max); an empty edge is no limit on that side.
  struct IdRange {
    std::string min;
    std::string max;
  };

  struct Options {
    storage::CollectionId collection = 0;
    storage::ScanDirection direction = storage::ScanDirection::kForward;
    std::optional<query::Matcher> filter;  // none: every record
    bool want_match_details = false;       // a positional projection reads them
    // The records whose encoded _id (storage::EncodeIdKey) lies in one of these ranges, which
    // are sorted and disjoint; none: every record. From find's min and max on the _id index
    // (one range), which explain shows as mongod shows a clustered collection's: minRecord and
    // maxRecord, the _id values `id_range` holds ({min: ..., max: ...}, either absent). Or from
    // the filter's bounds on _id, which explain shows as `id_bounds` ({_id: ["[5, inf.0]"]})
    // under indexBounds, as an IXSCAN of the _id index would.
    std::vector<IdRange> id_ranges;
    // The filter's _id bounds hold no key ({_id: {$gt: 5, $lt: 3}}): no record is read.
    bool reads_nothing = false;
    bson::Document id_range;
    bson::Document id_bounds;
  };

  CollectionScan(const storage::RecordStore* records, std::shared_ptr<const Interrupt> interrupt,
                 Options options);

  void Save() override { cursor_.reset(); }
  Status Restore() override { return Status::OK(); }  // the cursor reopens on demand
  std::string_view name() const override { return "COLLSCAN"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;

  bool forward() const { return options_.direction == storage::ScanDirection::kForward; }
  // Where a cursor for the current range starts (after this key, in the scan's direction).
  std::string_view RangeStart() const;
  // Whether `id_key`, met in scan order, lies beyond the current range.
  bool PastRange(std::string_view id_key) const;

  const storage::RecordStore* records_;
  std::shared_ptr<const Interrupt> interrupt_;
  Options options_;
  std::unique_ptr<storage::RecordCursor> cursor_;
  bool on_returned_record_ = false;  // the cursor is still on the record last returned
  std::string resume_after_;         // id key of the last record read
  bool done_ = false;
  std::size_t range_ = 0;  // of id_ranges, while it has any
};

}  // namespace quarry::exec
