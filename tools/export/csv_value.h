// The text of one CSV cell, per BSON type, as mongoexport --type csv writes values.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <string>

namespace quarry::tools::exporting {

// Appends the cell text for the value at `value` to `*out`, unquoted: a string as it is,
// numbers as plain numbers (a double in its shortest round-trip form; NaN, +Inf, -Inf), a
// boolean as true/false, null and undefined as nothing, an ObjectId as `ObjectId(<hex>)`, a
// date as ISO-8601 UTC with milliseconds, and a sub-document, array or any other type as its
// compact relaxed Extended JSON.
void AppendCsvValue(const bson_iter_t& value, std::string* out);

// Appends `millis` since the Unix epoch as `2024-01-02T03:04:05.678Z` (UTC). Years before 1 or
// past 9999 print with as many digits as they need.
void AppendIsoDate(std::int64_t millis, std::string* out);

}  // namespace quarry::tools::exporting
