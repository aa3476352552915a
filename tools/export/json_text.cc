// One scanner for both re-spacings: it copies strings verbatim and sees only the structural
// characters between them.
#include "tools/export/json_text.h"

#include <algorithm>

namespace quarry::tools::exporting {
namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Copies the string starting at json[*pos] (a quote) to `*out` and moves past it. A backslash
// always escapes the next character, so `\"` and `\\` cannot end or extend a string wrongly.
void CopyString(std::string_view json, std::size_t* pos, std::string* out) {
  std::size_t start = *pos;
  std::size_t i = start + 1;
  while (i < json.size() && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
  i = std::min(i + 1, json.size());
  out->append(json.substr(start, i - start));
  *pos = i;
}

std::size_t SkipSpace(std::string_view json, std::size_t pos) {
  while (pos < json.size() && IsJsonSpace(json[pos])) ++pos;
  return pos;
}

void NewLine(int depth, std::string* out) {
  out->push_back('\n');
  out->append(static_cast<std::size_t>(depth), '\t');
}

}  // namespace

void AppendCompactJson(std::string_view json, std::string* out) {
  out->reserve(out->size() + json.size());
  std::size_t pos = 0;
  while (pos < json.size()) {
    char c = json[pos];
    if (c == '"') {
      CopyString(json, &pos, out);
    } else {
      if (!IsJsonSpace(c)) out->push_back(c);
      ++pos;
    }
  }
}

void AppendIndentedJson(std::string_view json, std::string* out) {
  int depth = 0;
  std::size_t pos = 0;
  while (pos < json.size()) {
    char c = json[pos];
    if (c == '"') {
      CopyString(json, &pos, out);
      continue;
    }
    ++pos;
    switch (c) {
      case '{':
      case '[': {
        out->push_back(c);
        std::size_t next = SkipSpace(json, pos);
        char close = c == '{' ? '}' : ']';
        if (next < json.size() && json[next] == close) {
          out->push_back(close);
          pos = next + 1;
        } else {
          NewLine(++depth, out);
        }
        break;
      }
      case '}':
      case ']':
        depth = std::max(depth - 1, 0);
        NewLine(depth, out);
        out->push_back(c);
        break;
      case ',':
        out->push_back(',');
        NewLine(depth, out);
        break;
      case ':':
        out->append(": ");
        break;
      default:
        if (!IsJsonSpace(c)) out->push_back(c);
    }
  }
}

}  // namespace quarry::tools::exporting
