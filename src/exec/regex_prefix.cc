// The literal prefix of an anchored regex, which bounds the strings an index scan reads for it
// (mongod's IndexBoundsBuilder::simpleRegex).
#include <cstring>
#include <string>

#include "exec/index_intervals_internal.h"

namespace quarry::exec {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Drops the last character of `prefix`: a quantifier after it may repeat it zero times. A
// multi-byte UTF-8 character goes whole, where mongod drops one byte of it.
void DropLastCharacter(std::string* prefix) {
  while (!prefix->empty() && (static_cast<unsigned char>(prefix->back()) & 0xC0) == 0x80) {
    prefix->pop_back();
  }
  if (!prefix->empty()) prefix->pop_back();
}

}  // namespace

std::string RegexPrefix(std::string_view pattern, std::string_view options) {
  // "\A" anchors at the start in multi-line mode too; "^" does not.
  bool multiline_anchor = false;
  if (pattern.starts_with("\\A")) {
    multiline_anchor = true;
    pattern.remove_prefix(2);
  } else if (pattern.starts_with("^")) {
    pattern.remove_prefix(1);
  } else {
    return "";
  }
  if (pattern.find('|') != std::string_view::npos) return "";
  bool extended = false;
  for (char option : options) {
    if (option == 'm' && multiline_anchor) continue;
    if (option == 's') continue;  // changes what '.' matches only
    if (option != 'x') return "";
    extended = true;
  }
  std::string prefix;
  std::size_t pos = 0;
  while (pos < pattern.size()) {
    char c = pattern[pos++];
    if (c == '*' || c == '?' || c == '{') {
      // {n,m} may repeat the last character zero times as well (mongod keeps it).
      DropLastCharacter(&prefix);
      return prefix;
    }
    if (c == '\\') {
      if (pos == pattern.size()) return prefix;
      c = pattern[pos++];
      if (c == 'Q') {  // \Q...\E quotes everything up to \E
        while (pos < pattern.size()) {
          c = pattern[pos++];
          if (c == '\\' && pos < pattern.size() && pattern[pos] == 'E') {
            ++pos;
            break;
          }
          prefix.push_back(c);
        }
        continue;
      }
      // A letter or digit after a backslash is a class, an anchor or a reference.
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '\0') {
        return prefix;
      }
      prefix.push_back(c);  // any other escaped character stands for itself
      continue;
    }
    if (c == '\0' || std::strchr("^$.[()+", c) != nullptr) return prefix;
    if (extended && c == '#') return prefix;
    if (extended && IsSpace(c)) continue;
    prefix.push_back(c);
  }
  return prefix;
}

}  // namespace quarry::exec
