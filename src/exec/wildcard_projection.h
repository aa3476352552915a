// Which paths of a document a wildcard index holds: its key path ("$**" or "a.b.$**") and its
// wildcardProjection, parsed and applied as mongod does.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/projection/projection.h"

namespace quarry::exec {

// Whether a key pattern field names a wildcard index: "$**" or "<path>.$**".
bool IsWildcardKeyPath(std::string_view path);

class WildcardProjection {
 public:
  // Parses the key pattern field `key_path` (IsWildcardKeyPath) and the spec's
  // wildcardProjection (absent: none), with mongod's errors: TypeMismatch (14) for a projection
  // that is not a document, FailedToParse (9) for one on a "<path>.$**" key or an empty one, and
  // the projection parser's (31253, 31254, 31250...) or BadValue for an operator or computed
  // field, each prefixed "Failed to parse: wildcardProjection :: caused by :: ". The projection
  // is an inclusion or an exclusion of paths; "_id" is left out unless the projection includes it.
  static StatusWith<WildcardProjection> Parse(std::string_view key_path,
                                              bson::ValueView projection);

  // Whether the index holds every key of `path` (a dotted query path): the path is in the
  // indexed subtree and neither it nor a parent is projected out.
  bool Covers(std::string_view path) const;

  // The part of `doc` whose leaves the index holds: `doc` itself when only the top-level _id is
  // left out (`*skip_id` is then set, and the caller skips it), else the projected copy, kept in
  // `*storage`.
  bson::DocumentView Apply(bson::DocumentView doc, bson::Document* storage, bool* skip_id) const;

 private:
  WildcardProjection() = default;

  std::optional<query::Projection> projection_;  // none: every field but _id
  bool inclusion_ = false;
  std::vector<std::string> paths_;  // included (inclusion_) or excluded paths, without _id
  bool id_included_ = false;
};

}  // namespace quarry::exec
