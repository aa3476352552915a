// Reading one field of a BSON document by name, for the dump's headers, metadata and oplog
// entries.
#pragma once

#include <bson/bson.h>

#include <string>

namespace quarry::tools::dumping {

// The sub-document at `key`, as a read-only view into `parent` (valid while it lives).
bool SubDocument(const bson_t& parent, const char* key, bson_t* out);

// The string at `key`, or empty when it is missing or not a string.
std::string Utf8Field(const bson_t& parent, const char* key);
bool HasUtf8Field(const bson_t& parent, const char* key);

}  // namespace quarry::tools::dumping
