// Dotted paths ("a.b.0.c") in documents, without implicit array traversal: each component
// names a field of a document, or an index of an array. The query matcher adds MongoDB's
// array traversal on top of this.
#pragma once

#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::bson {

// The value at `path`, or an absent ValueView.
ValueView GetPath(DocumentView doc, std::string_view path);

// Splits "a.b.c" into its components.
std::vector<std::string_view> SplitPath(std::string_view path);

}  // namespace quarry::bson
