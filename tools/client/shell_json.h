// The mongo shell's way of writing documents, which mongoimport also reads, rewritten as strict
// Extended JSON, for `quarry import` and export's --query and --sort: unquoted keys,
// 'single-quoted' strings, trailing commas, comments, ObjectId("..."), Date(...) / new Date(...) /
// ISODate("..."), NumberInt(...), NumberLong(...), NumberDecimal(...), Timestamp(t, i),
// BinData(subtype, "base64"), UUID("..."), DBRef("collection", id), RegExp("pattern", "flags") and
// /pattern/flags, MinKey, MaxKey, undefined, NaN, Infinity and -Infinity; numbers may be
// hexadecimal (0x1f) or start with '+' or '.'.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::tools::client {

// `text` (one document, or any value) as strict Extended JSON. Strict JSON comes out with the
// same meaning. Errors (kFailedToParse) say where in `text` and what is wrong ("line 2, column 5:
// unknown constructor 'Foo'"): an unknown name, a constructor with the wrong arguments, an
// unterminated string.
StatusWith<std::string> ShellJsonToExtendedJson(std::string_view text);

}  // namespace quarry::tools::client
