// The parsed projection tree behind Projection. Folder-private.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bson/builder.h"
#include "bson/value.h"
#include "query/match/matcher.h"

namespace quarry::query {

// A computed field of an inclusion projection ({a: "$b.c"}, {a: {$add: [...]}}, {a: "x"}).
class ComputedValue {
 public:
  virtual ~ComputedValue() = default;
  // Appends the value for the document `root` under `key`; nothing when it is missing.
  virtual Status AppendTo(std::string_view key, bson::DocumentView root,
                          bson::DocumentBuilder* out) const = 0;
};

// projection_expr.cc: through the aggregation expression language.
StatusWith<std::unique_ptr<const ComputedValue>> ParseComputedValue(bson::ValueView spec);

enum class ProjectionKind {
  kPath,  // an interior node: the children say what happens below
  kInclude,
  kExclude,
  kSlice,
  kElemMatch,
  kPositional,  // field.$
  kComputed,
};

struct ProjectionNode {
  ProjectionKind kind = ProjectionKind::kPath;
  // kPath: children in projection order.
  std::vector<std::pair<std::string, std::unique_ptr<ProjectionNode>>> children;
  // kSlice: [skip, limit] or just a limit.
  std::int64_t slice_skip = 0;
  std::int64_t slice_limit = 0;
  bool slice_has_skip = false;
  // kElemMatch: {field: {$elemMatch: ...}}, whose MatchDetails name the element to keep.
  std::optional<Matcher> elem_match;
  // kComputed.
  std::unique_ptr<const ComputedValue> computed;

  ProjectionNode* Find(std::string_view name) const {
    for (const auto& [child_name, child] : children) {
      if (child_name == name) return child.get();
    }
    return nullptr;
  }
  // True if this node or one below it is computed (and so may create fields).
  bool HasComputed() const;
};

struct ApplyContext {
  bson::DocumentView root;
  const MatchDetails* details = nullptr;
  Status status;  // the first error met
};

// projection_apply.cc.
void ApplyInclusion(const ProjectionNode& node, bson::DocumentView doc, ApplyContext* context,
                    bson::DocumentBuilder* out);
void ApplyExclusion(const ProjectionNode& node, bson::DocumentView doc, ApplyContext* context,
                    bson::DocumentBuilder* out);

}  // namespace quarry::query
