// Re-spacing JSON text: libbson writes `{ "a" : 1 }`; an export writes it compact, as
// mongoexport does, or indented for --pretty.
#pragma once

#include <string>
#include <string_view>

namespace quarry::tools::exporting {

// Appends `json` to `*out` without the whitespace between tokens. Strings, escapes included,
// are copied unchanged. `json` must be well-formed (it is never user input).
void AppendCompactJson(std::string_view json, std::string* out);

// Appends `json` to `*out` indented with a tab per level, one member or element per line and
// `"key": value`, as mongoexport --pretty prints. Empty objects and arrays stay `{}` and `[]`.
// No newline after the last closing bracket.
void AppendIndentedJson(std::string_view json, std::string* out);

}  // namespace quarry::tools::exporting
