// The filter fields' values of every label, and postings from each value of a filter path to the
// labels that hold it, so that a selective filter's candidates are found without asking the
// filter about every label.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bson/value.h"
#include "query/match/field_path.h"
#include "vector/packed_bytes.h"

namespace quarry::vector {

// Not thread-safe, as PackedBytes.
class FilterTable {
 public:
  // Empties the table; postings are kept for `paths` (dotted, as filters name them).
  void Reset(const std::vector<std::string>& paths);

  std::size_t size() const { return values_.size(); }
  // Adds a label with `bytes` (a BSON document of its filter fields, or empty) as the last one.
  void Append(std::string_view bytes);
  // Replaces label `label`'s values; empty `bytes` leave it none.
  void Set(std::size_t label, std::string_view bytes);
  // Label `label`'s values as stored: empty when it has none.
  std::string_view Get(std::size_t label) const { return values_.Get(label); }
  // Label `label`'s values as a document; {} when it has none.
  bson::DocumentView Document(std::size_t label) const { return values_.Document(label); }

  // Labels that may match `filter` (a $vectorSearch filter, MQL), sorted: a superset of the
  // matches, narrowed by the one top-level condition on a filter path (or $and clause, or $or
  // whose every branch narrows) with the fewest candidates. nullopt when no condition narrows, or
  // when more than `max_candidates` remain. The filter itself must still be asked about each
  // candidate.
  std::optional<std::vector<std::uint32_t>> Candidates(bson::DocumentView filter,
                                                       std::size_t max_candidates) const;

 private:
  struct ValueLess {
    bool operator()(const std::string& a, const std::string& b) const;
  };
  // By value (type byte, then the value's bytes), in BSON comparison order; numbers of
  // different types that compare equal share one entry.
  using Postings = std::map<std::string, std::vector<std::uint32_t>, ValueLess>;

  void Post(std::uint32_t label, bool add);
  const Postings* PostingsOf(std::string_view dotted) const;
  // The union of the branches' candidates (an $or), or nullopt when one branch gives none.
  std::optional<std::vector<std::uint32_t>> ForEveryBranch(bson::DocumentView branches,
                                                           std::size_t max_candidates) const;
  std::optional<std::vector<std::uint32_t>> ForCondition(const Postings& postings,
                                                         bson::ValueView condition,
                                                         std::size_t max_candidates) const;
  std::optional<std::vector<std::uint32_t>> ForOperator(const Postings& postings,
                                                        std::string_view op,
                                                        bson::ValueView operand,
                                                        std::size_t max_candidates) const;

  PackedBytes values_;
  std::vector<std::pair<query::FieldPath, Postings>> paths_;  // the paths that narrow
};

}  // namespace quarry::vector
