// Validation of BSON bytes that come from a client, before anything reads them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace quarry::bson {

// Most documents and arrays that Validate accepts nested below the top-level document
// (mongod's maxBSONDepth: a flat document has one level, and 200 more may nest in it).
inline constexpr int kMaxNestingDepth = 200;

// Most levels of nesting in a stored document, the top level included (mongod's
// BSONDepth::getMaxDepthForUserStorage: 180, lower than kMaxNestingDepth so that a stored
// document still fits inside a command or a reply).
inline constexpr int kMaxStorageDepth = 180;

// Checks that `size` bytes at `data` are exactly one well-formed BSON document: lengths agree,
// every element type is known, strings are NUL-terminated with consistent lengths, nested
// documents are valid and nested at most kMaxNestingDepth deep, booleans are 0 or 1. Does not
// recurse on the machine stack, so hostile input cannot exhaust it. Fails with kInvalidBSON,
// or kOverflow (mongod's code) for nesting past kMaxNestingDepth, which is an ordinary error
// reply rather than a reason to close the connection. With `deepest`, sets it to the levels of
// the deepest document or array, counting the document itself as 1 as NestingDepth does (and a
// code-with-scope's scope too, so it is never less than NestingDepth's answer).
Status Validate(const char* data, std::size_t size, int* deepest = nullptr);

// Whether every key and every string of a document (values, code, symbols, regular
// expressions and pointers, at any depth) is valid UTF-8: what validate's checkBSONConformance
// asks of stored documents beyond their structure (clients may store strings that are not
// UTF-8, as they may on mongod). Fails with kNonConformantBSON naming the field.
// REQUIRES: the `size` bytes at `data` pass Validate.
Status ValidateUtf8(const char* data, std::size_t size);

// The levels of documents and arrays in a valid document, counting the document itself as 1,
// stopping early once past `limit`. Does not recurse on the machine stack.
int NestingDepth(const char* data, int limit);

// The length prefix of a document at `data` with `available` bytes, or -1 when it cannot be a
// document (fewer than 5 bytes, or a length outside [5, available]).
std::int64_t PeekDocumentLength(const char* data, std::size_t available);

}  // namespace quarry::bson
