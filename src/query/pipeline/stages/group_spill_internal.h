// $group past its memory limit under allowDiskUse: the groups so far go to a run on disk, in
// the order of their canonical keys, each with its accumulators' partial states; at the end the
// runs are merged by key and the partial states of one key combined, earliest run first, so the
// result is the one a $group that held every group in memory gives.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "query/pipeline/accumulator.h"
#include "query/spill/spill_file.h"
#include "query/value/value.h"

namespace quarry::query::stages {

// One group in memory, as a run takes it.
struct GroupToSpill {
  std::string_view canonical_key;  // equal for keys $group finds equal, under its collation
  const Value* key;                // the first key met
  const std::vector<std::unique_ptr<Accumulator>>* accumulators;
};

// Writes `groups` as one run in `dir`, sorted by canonical key. REQUIRES: every accumulator is
// mergeable().
StatusWith<SpillRun> WriteGroupRun(const std::string& dir, std::vector<GroupToSpill> groups);

// The groups of several runs, merged by canonical key.
class GroupRunMerge {
 public:
  using FreshAccumulators = std::function<std::vector<std::unique_ptr<Accumulator>>()>;

  // REQUIRES: `runs` outlive the merge; the earlier run holds the earlier documents.
  static StatusWith<std::unique_ptr<GroupRunMerge>> Open(const std::vector<SpillRun>& runs);
  ~GroupRunMerge();

  // The next group in canonical key order: its key (the first met, from the earliest run that
  // has it) and `fresh()` accumulators fed with each run's partial state of it, earliest first.
  // Returns false at the end. `canonical_key`, when given, receives the group's.
  StatusWith<bool> Next(const FreshAccumulators& fresh, Value* key,
                        std::vector<std::unique_ptr<Accumulator>>* accumulators,
                        std::string* canonical_key = nullptr);
  // Writes every group Next would return, its partial states combined, as one run in `dir`:
  // what a $group with too many runs to open at once merges them into.
  StatusWith<SpillRun> WriteMerged(const std::string& dir, const FreshAccumulators& fresh);

 private:
  struct Source;
  GroupRunMerge() = default;
  StatusWith<bool> Advance(Source& source);
  bool After(std::size_t a, std::size_t b) const;

  std::vector<std::unique_ptr<Source>> sources_;
  std::vector<std::size_t> heap_;  // sources with a group, the smallest key on top
};

}  // namespace quarry::query::stages
