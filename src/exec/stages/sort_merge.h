// SORT_MERGE: merges index scans that each hand up their entries in a sort's order into one
// stream in that order (mongod's merge sort), comparing the entries' keys, so records are read
// only for what is handed up. A record that several scans meet is handed up once.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/interrupt.h"
#include "bson/value.h"
#include "exec/stages/plan_stage.h"

namespace quarry::exec {

// Where one scan's index entries hold the sort's fields.
struct MergeKeyLayout {
  // Whether each leading key field of the index, up to the last one the sort reads, is stored
  // descending (its encoding's bytes inverted).
  std::vector<bool> stored_descending;
  // For each sort field in order: its position among the key fields, and whether the sort
  // orders it descending.
  struct SortField {
    std::size_t position = 0;
    bool descending = false;
  };
  std::vector<SortField> sort_fields;
};

// How an entry orders in a merge: `sort`, the bytes that order its index_key (its encoded key
// fields, then the id key in an index whose keys need not be unique) by the sort `layout`
// describes, so that memcmp on two of them orders entries as the sort orders their documents;
// and `rest_offset`, where the key fields after the last sort field start in index_key (ties
// are ordered by them). `sort` is empty when the key is cut short.
struct MergeKey {
  std::string sort;
  std::size_t rest_offset = 0;
};
MergeKey MergeKeyOf(const MergeKeyLayout& layout, std::string_view index_key);

class SortMergeStage final : public PlanStage {
 public:
  // `layouts[i]` describes child i's keys. `sort_pattern` is explain's sortPattern. Entries
  // the sort finds equal come out as one scan of their index in the children's direction
  // (`backward` or not) gives them: by the key fields after the sort's, then by record.
  // The merge checks `interrupt` (null: none) as often as a scan does: each of many short
  // scans may end before its own check.
  // REQUIRES: each child hands up id_key and index_key (an IXSCAN, covered or not), in the
  // sort's order.
  SortMergeStage(std::vector<std::unique_ptr<PlanStage>> children,
                 std::vector<MergeKeyLayout> layouts, bool backward, bson::Document sort_pattern,
                 std::shared_ptr<const Interrupt> interrupt);

  std::string_view name() const override { return "SORT_MERGE"; }

 private:
  // A child's next result, copied: the child's own bytes do not outlive its next Save().
  struct Pending {
    MergeKey merge_key;
    std::string id_key;
    std::string index_key;
    std::optional<bson::Document> doc;  // a covered scan's document
    query::MatchDetails details;
  };

  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;
  void ExplainStats(bson::DocumentBuilder* b) const override;
  // One unit of child `child_idx`'s work: its next result joins the merge, unless its record
  // was handed up (or is waiting) already. Returns whether the child needs no more work now.
  StatusWith<bool> Pull(std::size_t child_idx);
  // Whether child a's pending result comes after child b's: by sort key, then as one scan
  // would give them, so that ties come out in one order whatever the values that split the scans.
  bool After(std::size_t a, std::size_t b) const;

  std::vector<MergeKeyLayout> layouts_;
  bool backward_;
  bson::Document sort_pattern_;
  std::shared_ptr<const Interrupt> interrupt_;
  std::vector<Pending> pending_;
  std::vector<std::size_t> heap_;      // the children with a pending result, smallest on top
  std::size_t primed_ = 0;             // children that have a pending result or ended
  std::optional<std::size_t> refill_;  // the child whose result was handed up last
  std::unordered_set<std::string> seen_;
  std::int64_t dups_tested_ = 0;
  std::int64_t dups_dropped_ = 0;
};

}  // namespace quarry::exec
