#include "tools/import/date_layout.h"

#include <array>
#include <cctype>

#include "tools/import/extended_json_values.h"

namespace quarry::tools::importing {
namespace {

constexpr std::array<std::string_view, 12> kMonthNames = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};

bool StartsWith(std::string_view text, std::size_t pos, std::string_view prefix) {
  return text.substr(pos, prefix.size()) == prefix;
}

// Reads between `min` and `max` digits.
std::optional<int> ReadNumber(std::string_view text, std::size_t* pos, std::size_t min,
                              std::size_t max) {
  std::size_t digits = 0;
  int value = 0;
  while (digits < max && *pos < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[*pos]))) {
    value = value * 10 + (text[*pos] - '0');
    ++*pos;
    ++digits;
  }
  if (digits < min) return std::nullopt;
  return value;
}

Status Unsupported(std::string_view layout, std::string_view element) {
  return Status(ErrorCode::kBadValue, "the date layout \"" + std::string(layout) + "\" uses \"" +
                                          std::string(element) + "\", which is not supported");
}

}  // namespace

StatusWith<DateLayout> DateLayout::FromGo(std::string_view layout) {
  std::vector<Part> parts;
  auto add = [&](Element element) { parts.push_back({element, {}}); };
  std::size_t pos = 0;
  while (pos < layout.size()) {
    const std::string_view rest = layout.substr(pos);
    auto take = [&](std::string_view token, Element element) {
      if (!rest.starts_with(token)) return false;
      add(element);
      pos += token.size();
      return true;
    };
    if (take("January", Element::kMonthLongName) || take("Jan", Element::kMonthShortName) ||
        take("2006", Element::kYear4) || take("Z07:00", Element::kOffsetOrZ) ||
        take("Z0700", Element::kOffsetOrZ) || take("-07:00", Element::kOffset) ||
        take("-0700", Element::kOffset) || take("-07", Element::kOffset) ||
        take("01", Element::kMonth2) || take("02", Element::kDay2) ||
        take("03", Element::kHour12_2) || take("04", Element::kMinute2) ||
        take("05", Element::kSecond2) || take("06", Element::kYear2) ||
        take("15", Element::kHour24) || take("PM", Element::kAmPm) || take("pm", Element::kAmPm) ||
        take("1", Element::kMonth) || take("2", Element::kDay) || take("3", Element::kHour12) ||
        take("4", Element::kMinute) || take("5", Element::kSecond)) {
      continue;
    }
    for (std::string_view bad : {"Monday", "Mon", "MST", "_2", "002"}) {
      if (rest.starts_with(bad)) return Unsupported(layout, bad);
    }
    if ((rest[0] == '.' || rest[0] == ',') && rest.size() > 1 &&
        (rest[1] == '0' || rest[1] == '9')) {
      std::size_t end = 1;
      while (end < rest.size() && rest[end] == rest[1]) ++end;
      add(Element::kFraction);
      pos += end;
      continue;
    }
    if (parts.empty() || parts.back().element != Element::kLiteral)
      parts.push_back({Element::kLiteral, {}});
    parts.back().literal.push_back(rest[0]);
    ++pos;
  }
  return DateLayout(std::move(parts));
}

StatusWith<DateLayout> DateLayout::FromMs(std::string_view layout) {
  std::vector<Part> parts;
  std::size_t pos = 0;
  while (pos < layout.size()) {
    const std::string_view rest = layout.substr(pos);
    std::size_t run = 1;
    while (run < rest.size() && rest[run] == rest[0]) ++run;
    const std::string_view token = rest.substr(0, run);
    Element element = Element::kLiteral;
    if (token == "yyyy")
      element = Element::kYear4;
    else if (token == "yy")
      element = Element::kYear2;
    else if (token == "MM")
      element = Element::kMonth2;
    else if (token == "M")
      element = Element::kMonth;
    else if (token == "MMM")
      element = Element::kMonthShortName;
    else if (token == "MMMM")
      element = Element::kMonthLongName;
    else if (token == "dd")
      element = Element::kDay2;
    else if (token == "d")
      element = Element::kDay;
    else if (token == "HH")
      element = Element::kHour24;
    else if (token == "H")
      element = Element::kHour24Any;
    else if (token == "hh")
      element = Element::kHour12_2;
    else if (token == "h")
      element = Element::kHour12;
    else if (token == "mm")
      element = Element::kMinute2;
    else if (token == "m")
      element = Element::kMinute;
    else if (token == "ss")
      element = Element::kSecond2;
    else if (token == "s")
      element = Element::kSecond;
    else if (token == "tt")
      element = Element::kAmPm;
    else if (token[0] == 'f')
      element = Element::kFraction;
    else if (std::isalpha(static_cast<unsigned char>(token[0])))
      return Unsupported(layout, token);
    if (element == Element::kFraction) {
      // "fff" reads the digits after a '.' that the layout spells out itself.
      if (!parts.empty() && parts.back().element == Element::kLiteral &&
          parts.back().literal.ends_with('.')) {
        parts.back().literal.pop_back();
        if (parts.back().literal.empty()) parts.pop_back();
      }
      parts.push_back({Element::kFraction, {}});
    } else if (element == Element::kLiteral) {
      if (parts.empty() || parts.back().element != Element::kLiteral)
        parts.push_back({Element::kLiteral, {}});
      parts.back().literal.append(token);
    } else {
      parts.push_back({element, {}});
    }
    pos += run;
  }
  return DateLayout(std::move(parts));
}

std::optional<std::int64_t> DateLayout::Parse(std::string_view text) const {
  int year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0;
  int offset_minutes = 0;
  bool pm = false, has_am_pm = false;
  std::size_t pos = 0;
  for (const Part& part : parts_) {
    std::optional<int> number;
    switch (part.element) {
      case Element::kLiteral:
        if (!StartsWith(text, pos, part.literal)) return std::nullopt;
        pos += part.literal.size();
        continue;
      case Element::kYear4:
        number = ReadNumber(text, &pos, 4, 4);
        if (number) year = *number;
        break;
      case Element::kYear2:
        number = ReadNumber(text, &pos, 2, 2);
        if (number) year = *number + (*number >= 69 ? 1900 : 2000);  // Go's pivot
        break;
      case Element::kMonth2:
      case Element::kMonth:
        number = ReadNumber(text, &pos, part.element == Element::kMonth2 ? 2 : 1, 2);
        if (number) month = *number;
        break;
      case Element::kMonthShortName:
      case Element::kMonthLongName:
        for (std::size_t m = 0; m < kMonthNames.size(); ++m) {
          const std::string_view name = part.element == Element::kMonthShortName
                                            ? kMonthNames[m].substr(0, 3)
                                            : kMonthNames[m];
          if (StartsWith(text, pos, name)) {
            month = static_cast<int>(m) + 1;
            pos += name.size();
            number = month;
            break;
          }
        }
        break;
      case Element::kDay2:
      case Element::kDay:
        number = ReadNumber(text, &pos, part.element == Element::kDay2 ? 2 : 1, 2);
        if (number) day = *number;
        break;
      case Element::kHour24:
      case Element::kHour24Any:
      case Element::kHour12_2:
      case Element::kHour12:
        number = ReadNumber(
            text, &pos,
            part.element == Element::kHour24 || part.element == Element::kHour12_2 ? 2 : 1, 2);
        if (number) hour = *number;
        break;
      case Element::kMinute2:
      case Element::kMinute:
        number = ReadNumber(text, &pos, part.element == Element::kMinute2 ? 2 : 1, 2);
        if (number) minute = *number;
        break;
      case Element::kSecond2:
      case Element::kSecond:
        number = ReadNumber(text, &pos, part.element == Element::kSecond2 ? 2 : 1, 2);
        if (number) second = *number;
        break;
      case Element::kFraction: {
        if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) ++pos;
        int digits = 0;
        millis = 0;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
          if (digits < 3) millis = millis * 10 + (text[pos] - '0');
          ++digits;
          ++pos;
        }
        for (int d = digits; d < 3; ++d) millis *= 10;
        number = 0;
        break;
      }
      case Element::kAmPm:
        if (StartsWith(text, pos, "PM") || StartsWith(text, pos, "pm")) {
          pm = true;
        } else if (!StartsWith(text, pos, "AM") && !StartsWith(text, pos, "am")) {
          return std::nullopt;
        }
        has_am_pm = true;
        pos += 2;
        number = 0;
        break;
      case Element::kOffsetOrZ:
      case Element::kOffset: {
        if (part.element == Element::kOffsetOrZ && pos < text.size() && text[pos] == 'Z') {
          ++pos;
          offset_minutes = 0;
          number = 0;
          break;
        }
        if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
        const int sign = text[pos] == '-' ? -1 : 1;
        ++pos;
        auto hours = ReadNumber(text, &pos, 2, 2);
        if (!hours) return std::nullopt;
        int minutes = 0;
        if (pos < text.size() && text[pos] == ':') ++pos;
        if (auto parsed = ReadNumber(text, &pos, 2, 2)) minutes = *parsed;
        offset_minutes = sign * (*hours * 60 + minutes);
        number = 0;
        break;
      }
    }
    if (!number) return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  if (has_am_pm) {
    if (hour < 1 || hour > 12) return std::nullopt;
    hour = hour % 12 + (pm ? 12 : 0);
  }
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1] ||
      (month == 2 && !leap && day > 28) || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  const std::int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 24 + hour) * 60 + minute - offset_minutes) * std::int64_t{60'000} +
         second * 1000 + millis;
}

}  // namespace quarry::tools::importing
