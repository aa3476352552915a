// Date layouts of typed CSV columns, as mongoimport reads them: date(...) and date_go(...) take
// Go's reference layout ("2006-01-02T15:04:05Z07:00"), date_ms(...) a .NET-style one
// ("yyyy-MM-dd HH:mm:ss"). A layout is parsed once, then reads many values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace quarry::tools::importing {

class DateLayout {
 public:
  // Errors (kBadValue) name a layout element that is not supported (weekday names, zone
  // abbreviations, day-of-year).
  static StatusWith<DateLayout> FromGo(std::string_view layout);
  static StatusWith<DateLayout> FromMs(std::string_view layout);

  // Milliseconds since the Unix epoch (UTC unless the layout has an offset), or nullopt when
  // `text` does not follow the layout or names an invalid date.
  std::optional<std::int64_t> Parse(std::string_view text) const;

 private:
  enum class Element {
    kLiteral,
    kYear4,
    kYear2,
    kMonth2,
    kMonth,  // 1 or 2 digits
    kMonthShortName,
    kMonthLongName,
    kDay2,
    kDay,
    kHour24,  // 2 digits
    kHour24Any,
    kHour12_2,
    kHour12,
    kMinute2,
    kMinute,
    kSecond2,
    kSecond,
    kFraction,  // '.' and digits
    kAmPm,
    kOffsetOrZ,  // "Z" or "+07:00"/"+0700"
    kOffset,     // "+07:00", "+0700" or "+07"
  };
  struct Part {
    Element element;
    std::string literal;
  };
  explicit DateLayout(std::vector<Part> parts) : parts_(std::move(parts)) {}

  std::vector<Part> parts_;
};

}  // namespace quarry::tools::importing
