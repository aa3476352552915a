// What an index reads from a document: the vector at a path, and the fields its filters test.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::vector {

// The array of numbers at the dotted `path` (through sub-documents, not arrays), as floats; or
// nullopt when the field is missing, not an array, or holds anything but finite numbers (such
// a document is simply not indexed, as Atlas does).
std::optional<std::vector<float>> VectorAt(bson::DocumentView document, std::string_view path);

// The fields of `document` that `filter_paths` start with (each whole, so a dotted path keeps
// its meaning), for evaluating a filter without the document.
bson::Document FilterFieldsOf(bson::DocumentView document,
                              const std::vector<std::string>& filter_paths);

}  // namespace quarry::vector
