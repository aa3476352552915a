// Validation of BSON bytes that come from a client, before anything reads them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace quarry::bson {

// Maximum nesting of documents and arrays that Validate accepts (mongod's parser limit).
inline constexpr int kMaxNestingDepth = 200;

// Checks that `size` bytes at `data` are exactly one well-formed BSON document: lengths agree,
// every element type is known, strings are NUL-terminated with consistent lengths, nested
// documents are valid and nested at most kMaxNestingDepth deep, booleans are 0 or 1. Does not
// recurse on the machine stack, so hostile input cannot exhaust it. Fails with kInvalidBSON.
Status Validate(const char* data, std::size_t size);

// The length prefix of a document at `data` with `available` bytes, or -1 when it cannot be a
// document (fewer than 5 bytes, or a length outside [5, available]).
std::int64_t PeekDocumentLength(const char* data, std::size_t available);

}  // namespace quarry::bson
