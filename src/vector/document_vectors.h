// What an index reads from a document: the vector at a path, and the fields its filters test.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::vector {

// How a vector is given: an array of numbers, or BSON's binary vector (BinData subtype 9: a
// dtype byte, a padding byte, then the elements).
enum class VectorForm { kNumbers, kFloat32, kInt8, kPackedBits, kNotAVector };
VectorForm FormOf(bson::ValueView value);

// The vector `value` holds, as floats: an array of finite numbers, or a float32 or int8 binary
// vector. Nullopt for anything else, including packed-bit vectors (no index takes them yet).
std::optional<std::vector<float>> VectorOf(bson::ValueView value);

// VectorOf the value at the dotted `path` (through sub-documents, not arrays); nullopt when it
// is missing or not a vector (such a document is simply not indexed, as Atlas does).
std::optional<std::vector<float>> VectorAt(bson::DocumentView document, std::string_view path);

// The fields of `document` that `filter_paths` start with (each whole, so a dotted path keeps
// its meaning), for evaluating a filter without the document.
bson::Document FilterFieldsOf(bson::DocumentView document,
                              const std::vector<std::string>& filter_paths);

}  // namespace quarry::vector
