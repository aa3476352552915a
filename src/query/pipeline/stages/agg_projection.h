// Aggregation's document reshaping, shared by $project, $addFields/$set and $unset (and so by
// pipeline-style updates): inclusion, exclusion and computed fields over nested paths, with
// arrays traversed element by element as mongod's projection executor does.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/expression/expression.h"
#include "query/update/mutable_value.h"

namespace quarry::query::stages {

class AggProjection {
 public:
  enum class Mode { kInclusion, kExclusion, kAddFields };

  // $project: {a: 1, b: 0, c: <expression>, "d.e": 1, f: {g: 1}}. Errors as mongod: 31253/31254
  // mixing inclusion and exclusion, 31252 expressions in an exclusion, 31250 path collisions,
  // 51272 for an empty specification.
  static StatusWith<AggProjection> ParseProject(bson::DocumentView spec, ParseContext& ctx);
  // $addFields / $set: every value is an expression; nested documents without operators add
  // fields inside existing documents.
  static StatusWith<AggProjection> ParseAddFields(bson::DocumentView spec, ParseContext& ctx);
  // $unset: "a" or ["a", "b.c"].
  static StatusWith<AggProjection> ParseUnset(bson::ValueView spec);

  // Reshapes `doc` (also $$ROOT and $$CURRENT in ctx).
  StatusWith<bson::Document> Apply(const Value& doc, EvalContext& ctx) const;

  Mode mode() const { return mode_; }

  struct Node;

 private:
  Mode mode_ = Mode::kInclusion;
  std::shared_ptr<const Node> root_;
};

struct AggProjection::Node {
  enum class Kind { kInclude, kExclude, kExpression, kNested };
  struct Child {
    Kind kind = Kind::kInclude;
    ExpressionPtr expr;
    std::shared_ptr<Node> nested;
  };
  std::vector<std::string> order;  // children in specification order
  std::map<std::string, Child, std::less<>> children;
  bool has_computed = false;  // an expression somewhere below
};

}  // namespace quarry::query::stages
