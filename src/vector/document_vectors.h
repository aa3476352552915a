// What an index reads from a document: the vector at a path, the fields its filters test, and,
// for an index with a nested root, the elements of the array there.
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

// The vector `value` holds, as floats: an array of finite numbers, a float32 or int8 binary
// vector, or a packed-bit (int1) vector as one 0 or 1 per bit (its padding bits left out, so
// the length is its bit count). Nullopt for anything else or an empty vector.
std::optional<std::vector<float>> VectorOf(bson::ValueView value);

// The value at the dotted `path` (through sub-documents, not arrays); missing when a step is
// not a document.
bson::ValueView ValueAt(bson::DocumentView document, std::string_view path);

// VectorOf the value at the dotted `path`; nullopt when it is missing or not a vector (such a
// document is simply not indexed, as Atlas does).
std::optional<std::vector<float>> VectorAt(bson::DocumentView document, std::string_view path);

// The fields of `document` that `filter_paths` start with (each whole, so a dotted path keeps
// its meaning), for evaluating a filter without the document.
bson::Document FilterFieldsOf(bson::DocumentView document,
                              const std::vector<std::string>& filter_paths);

// The sub-documents at `root`: each document element of the array there, or the one document
// there when it is not an array. Elements that are not documents have nothing to index.
std::vector<bson::DocumentView> ElementsAt(bson::DocumentView document, std::string_view root);

// `fields` (an element's filter fields, relative to it) placed under the dotted `root`, so
// that a filter on the full paths ("sections.page") matches them: {sections: {page: 3}}.
bson::Document UnderRoot(std::string_view root, bson::DocumentView fields);

}  // namespace quarry::vector
