// The date strings $toDate and $convert accept.
#include "query/expression/expression_internal.h"

namespace quarry::query::expr_internal {

// Parses the ISO-8601-like strings $toDate accepts: "2021-02-03", "2021-02-03T04:05:06",
// optional ".mmm", and "Z" or an offset like "+05:30" / "-0800".
bool ParseDateString(std::string_view s, std::int64_t* out) {
  std::size_t pos = 0;
  auto number = [&](int digits, std::int64_t* value) {
    if (pos + static_cast<std::size_t>(digits) > s.size()) return false;
    std::int64_t n = 0;
    for (int i = 0; i < digits; ++i) {
      char c = s[pos + static_cast<std::size_t>(i)];
      if (c < '0' || c > '9') return false;
      n = n * 10 + (c - '0');
    }
    pos += static_cast<std::size_t>(digits);
    *value = n;
    return true;
  };
  auto expect = [&](char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  std::int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
  if (!number(4, &year) || !expect('-') || !number(2, &month) || !expect('-') || !number(2, &day)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    ++pos;
    if (!number(2, &hour) || !expect(':') || !number(2, &minute)) return false;
    if (expect(':')) {
      if (!number(2, &second)) return false;
      if (expect('.')) {
        std::size_t start = pos;
        std::int64_t frac = 0;
        int digits = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
          if (digits < 3) {
            frac = frac * 10 + (s[pos] - '0');
            ++digits;
          }
          ++pos;
        }
        if (pos == start) return false;
        while (digits < 3) {
          frac *= 10;
          ++digits;
        }
        millis = frac;
      }
    }
    if (hour > 23 || minute > 59 || second > 60) return false;
  }
  std::int64_t offset_minutes = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      bool negative = s[pos] == '-';
      ++pos;
      std::int64_t oh = 0, om = 0;
      if (!number(2, &oh)) return false;
      expect(':');
      if (pos < s.size() && !number(2, &om)) return false;
      offset_minutes = (oh * 60 + om) * (negative ? -1 : 1);
    }
  }
  if (pos != s.size()) return false;
  *out = FromCivil(year, month, day, hour, minute, second, millis) - offset_minutes * 60000;
  return true;
}

}  // namespace quarry::query::expr_internal
