// find's projection language: inclusion and exclusion of (dotted) fields, the _id rules,
// $slice, $elemMatch, the positional `field.$`, and aggregation expressions in inclusion mode.
#pragma once

#include <memory>

#include "base/status.h"
#include "bson/value.h"
#include "query/match/matcher.h"

namespace quarry::query {

struct ProjectionNode;  // projection_internal.h

class Projection {
 public:
  // Parses a find projection. Errors as mongod: 31254 "Cannot do exclusion on field x in
  // inclusion projection", 31253 "Cannot do inclusion on field x in exclusion projection",
  // 31250 "Path collision at x", 31249 "Path collision at x remaining portion y", 31252 for
  // expressions in exclusion mode, 31276 for two positional projections, 28667/28724 for bad
  // $slice arguments, BadValue for $meta (not supported yet). `query`, the find's filter, is
  // accepted for a future check that a positional path appears in it; it may be null. Aggregation
  // expressions ({x: "$a"}, {x: {$add: ...}}, literals) are computed fields (inclusion mode).
  static StatusWith<Projection> Parse(bson::DocumentView spec, const Matcher* query = nullptr);

  // The projected document. `details` are the match details of this document under the find's
  // filter; required only when uses_positional(). Fails only for a positional projection that
  // finds no matching array element (51246, as mongod's executor error).
  StatusWith<bson::Document> Apply(bson::DocumentView doc,
                                   const MatchDetails* details = nullptr) const;

  // True for a projection with no effect ({}), which callers can skip.
  bool is_identity() const { return identity_; }
  // True when Apply needs the filter's MatchDetails (a `field.$` projection).
  bool uses_positional() const { return positional_; }
  // True for inclusion mode ({a: 1}), false for exclusion mode ({a: 0}).
  bool is_inclusion() const { return inclusion_; }

 private:
  Projection() = default;

  std::shared_ptr<const bson::Document> spec_;
  std::shared_ptr<const ProjectionNode> root_;
  bool identity_ = true;
  bool positional_ = false;
  bool inclusion_ = false;
};

}  // namespace quarry::query
