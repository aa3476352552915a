// Dotted paths into a document, as `quarry export --type csv` names its columns.
#pragma once

#include <bson/bson.h>

#include <string_view>

namespace quarry::tools::exporting {

// Finds the value at `dotted_path` ("address.city", "tags.0") in `document` and points `*value`
// at it. Each part names a field of a sub-document or, as a decimal index, an element of an
// array. False when a part is missing, out of range, or would reach into a scalar.
bool FindDottedPath(const bson_t& document, std::string_view dotted_path, bson_iter_t* value);

}  // namespace quarry::tools::exporting
