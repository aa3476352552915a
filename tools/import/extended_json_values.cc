#include "tools/import/extended_json_values.h"

#include <array>
#include <cctype>

namespace quarry::tools::importing {
namespace {

constexpr std::array<std::int8_t, 256> MakeBase64Table() {
  std::array<std::int8_t, 256> table{};
  for (auto& entry : table) entry = -1;
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 64; ++i)
    table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
  return table;
}
constexpr std::array<std::int8_t, 256> kBase64 = MakeBase64Table();

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads exactly `width` decimal digits at `*pos`.
std::optional<int> Digits(std::string_view text, std::size_t* pos, std::size_t width) {
  if (*pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    char c = text[*pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  *pos += width;
  return value;
}

bool Accept(std::string_view text, std::size_t* pos, char c) {
  if (*pos < text.size() && text[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// "Z", "+HH:MM", "+HHMM" or "+HH" (or '-'), as minutes east of UTC.
std::optional<int> ParseOffsetMinutes(std::string_view text, std::size_t* pos) {
  if (Accept(text, pos, 'Z')) return 0;
  if (*pos >= text.size() || (text[*pos] != '+' && text[*pos] != '-')) return std::nullopt;
  const int sign = text[*pos] == '-' ? -1 : 1;
  ++*pos;
  auto hours = Digits(text, pos, 2);
  if (!hours || *hours > 23) return std::nullopt;
  int minutes = 0;
  if (*pos < text.size()) {
    Accept(text, pos, ':');
    auto parsed = Digits(text, pos, 2);
    if (!parsed || *parsed > 59) return std::nullopt;
    minutes = *parsed;
  }
  return sign * (*hours * 60 + minutes);
}

}  // namespace

std::optional<std::string> DecodeBase64(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int value = kBase64[static_cast<unsigned char>(c)];
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    if (++count == 4) {
      out.push_back(static_cast<char>(bits >> 16));
      out.push_back(static_cast<char>(bits >> 8));
      out.push_back(static_cast<char>(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) out.push_back(static_cast<char>(bits >> 4));
  if (count == 3) {
    out.push_back(static_cast<char>(bits >> 10));
    out.push_back(static_cast<char>(bits >> 2));
  }
  return out;
}

std::optional<std::uint8_t> ParseHexSubtype(std::string_view text) {
  if (text.empty() || text.size() > 2) return std::nullopt;
  int value = 0;
  for (char c : text) {
    const int digit = HexDigit(c);
    if (digit < 0) return std::nullopt;
    value = value * 16 + digit;
  }
  return static_cast<std::uint8_t>(value);
}

std::optional<std::string> DecodeHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int high = HexDigit(text[i]);
    const int low = HexDigit(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

std::int64_t DaysFromCivil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

std::optional<std::int64_t> ParseIsoDateMillis(std::string_view text) {
  std::size_t pos = 0;
  auto year = Digits(text, &pos, 4);
  if (!year || !Accept(text, &pos, '-')) return std::nullopt;
  auto month = Digits(text, &pos, 2);
  if (!month || *month < 1 || *month > 12 || !Accept(text, &pos, '-')) return std::nullopt;
  auto day = Digits(text, &pos, 2);
  if (!day || *day < 1 || *day > DaysInMonth(*year, *month)) return std::nullopt;
  std::int64_t millis =
      DaysFromCivil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)) * 86'400'000;
  if (pos == text.size()) return millis;
  if (!Accept(text, &pos, 'T') && !Accept(text, &pos, ' ')) return std::nullopt;
  auto hour = Digits(text, &pos, 2);
  if (!hour || *hour > 23 || !Accept(text, &pos, ':')) return std::nullopt;
  auto minute = Digits(text, &pos, 2);
  if (!minute || *minute > 59) return std::nullopt;
  int second = 0;
  int fraction_millis = 0;
  if (Accept(text, &pos, ':')) {
    auto parsed = Digits(text, &pos, 2);
    if (!parsed || *parsed > 60) return std::nullopt;  // 60: a leap second, as ISO-8601 allows
    second = *parsed;
    if (Accept(text, &pos, '.')) {
      int digits = 0;
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
        if (digits < 3) fraction_millis = fraction_millis * 10 + (text[pos] - '0');
        ++digits;
        ++pos;
      }
      if (digits == 0) return std::nullopt;
      for (int i = digits; i < 3; ++i) fraction_millis *= 10;
    }
  }
  auto offset = ParseOffsetMinutes(text, &pos);
  if (!offset || pos != text.size()) return std::nullopt;
  millis += ((*hour * 60 + *minute - *offset) * 60 + second) * std::int64_t{1000} + fraction_millis;
  return millis;
}

}  // namespace quarry::tools::importing
