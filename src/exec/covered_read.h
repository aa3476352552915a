// Covered reads: a find whose filter, sort and projection read only an index's key fields is
// answered from the index entries' key values (key_values.h), with no record read
// (PROJECTION_COVERED over IXSCAN, as mongod plans it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bson/value.h"
#include "exec/index_descriptor.h"
#include "query/sort/sort.h"

namespace quarry::exec {

// The paths a plain inclusion projection keeps ({a: 1, "b.c": true}; _id too unless it is
// excluded), or nullopt for any other projection (exclusions, expressions, $slice, $elemMatch,
// positional paths), which a covered read does not serve.
std::optional<std::vector<std::string>> InclusionPaths(bson::DocumentView projection);

// Every path `filter` reads, or nullopt when it reads whole documents ($expr, $where, $text,
// $jsonSchema and other top-level operators but $and, $or, $nor and $comment) or, as mongod
// plans it, uses $exists or $elemMatch, whose bounds mongod never takes as exact.
std::optional<std::vector<std::string>> FilterPaths(bson::DocumentView filter);

// Whether an index with these fields, multikey or not, holds every path in `paths` (the
// projection's, the filter's and the sort's): the index is not multikey nor a wildcard one, no key
// field's path is another's or a prefix of another's, and each path is a key field's or lies below
// one (a non-multikey field's value is whole, so "a.b" is read from the field "a").
bool IndexCoversPaths(const IndexDescriptor& index, bool multikey,
                      const std::vector<std::string>& paths);

// The paths a covered plan of a read with this projection (InclusionPaths), filter and sort
// must find in the index, or nullopt when no index can cover it.
std::optional<std::vector<std::string>> CoveredReadPaths(
    const std::optional<std::vector<std::string>>& projection_paths, bson::DocumentView filter,
    const query::SortSpec& sort);

}  // namespace quarry::exec
