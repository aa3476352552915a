// ParseByteSize and SplitList.
#include "tools/client/byte_size.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace quarry::tools::client {

StatusWith<std::size_t> ParseByteSize(std::string_view text) {
  const std::string original(text);
  auto bad = [&] {
    return Status(ErrorCode::kBadValue,
                  "invalid size '" + original + "' (e.g. 1kb, 1000, 1.5mb, 4kib)");
  };
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return bad();
  double number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || end != text.data() + digits) return bad();
  std::string unit;
  for (char c : text.substr(digits)) {
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  unit.erase(0, unit.find_first_not_of(' '));
  unit.erase(unit.find_last_not_of(' ') + 1);
  double scale;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (unit == "k" || unit == "kb") {
    scale = 1e3;
  } else if (unit == "m" || unit == "mb") {
    scale = 1e6;
  } else if (unit == "g" || unit == "gb") {
    scale = 1e9;
  } else if (unit == "kib") {
    scale = 1024.0;
  } else if (unit == "mib") {
    scale = 1024.0 * 1024;
  } else if (unit == "gib") {
    scale = 1024.0 * 1024 * 1024;
  } else {
    return bad();
  }
  double bytes = std::round(number * scale);
  if (!(bytes >= 1) || bytes > 1e15) return bad();
  return static_cast<std::size_t>(bytes);
}

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> items;
  std::string current;
  auto flush = [&] {
    std::size_t begin = current.find_first_not_of(' ');
    std::size_t end = current.find_last_not_of(' ');
    if (begin != std::string::npos) items.push_back(current.substr(begin, end - begin + 1));
    current.clear();
  };
  for (char c : text) {
    if (c == ',') {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return items;
}

}  // namespace quarry::tools::client
