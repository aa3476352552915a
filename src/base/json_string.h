// A string as a JSON string literal, for the JSON that Quarry writes itself (log lines, the
// `quarry` tool's --json output).
#pragma once

#include <string>
#include <string_view>

namespace quarry {

// `text` between double quotes, with quotes, backslashes and control characters escaped.
std::string QuoteJson(std::string_view text);

}  // namespace quarry
