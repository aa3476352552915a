// Date expressions: $year $month $dayOfMonth $hour $minute $second $millisecond $dayOfWeek
// $dayOfYear $week $isoWeek $isoWeekYear $isoDayOfWeek $dateToString, with UTC and fixed-offset
// time zones ("+05:30"). Olson names other than UTC/GMT are not known yet.
#include <cstdio>

#include "query/expression/expression_internal.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t DaysFromCivil(std::int64_t y, std::int64_t m, std::int64_t d) {
  y -= m <= 2;
  const std::int64_t era = FloorDiv(y, 400);
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool IsLeap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// ISO 8601 week-numbering: the week (1..53) and its year.
void IsoWeek(const CivilTime& t, int* week, std::int64_t* week_year) {
  const int iso_dow = t.day_of_week == 1 ? 7 : t.day_of_week - 1;  // Monday=1..Sunday=7
  int w = (t.day_of_year - iso_dow + 10) / 7;
  std::int64_t y = t.year;
  if (w < 1) {
    --y;
    const std::int64_t jan1_prev = DaysFromCivil(y, 1, 1);
    const int days_prev = IsLeap(y) ? 366 : 365;
    // Weekday of Dec 31 of the previous year decides whether it has 52 or 53 weeks.
    const std::int64_t dec31 = jan1_prev + days_prev - 1;
    const int dec31_dow = static_cast<int>(((dec31 % 7) + 7 + 3) % 7) + 1;  // Monday=1
    const int doy_prev = days_prev;
    w = (doy_prev - dec31_dow + 10) / 7;
  } else if (w == 53) {
    const int days = IsLeap(y) ? 366 : 365;
    if (t.day_of_year - iso_dow > days - 4) {
      w = 1;
      ++y;
    }
  }
  *week = w;
  *week_year = y;
}

// A parsed time zone: a fixed offset from UTC in minutes.
StatusWith<std::int64_t> ParseTimezone(const Value& tz) {
  if (tz.type() != Type::kString) {
    return LocationError(40517,
                         "timezone must evaluate to a string, found " + std::string(TypeName(tz)));
  }
  std::string_view s = tz.view().String();
  if (s == "UTC" || s == "GMT" || s == "Z" || s == "Etc/UTC" || s == "Etc/GMT") return 0;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    std::string digits;
    for (char c : s.substr(1)) {
      if (c >= '0' && c <= '9') {
        digits.push_back(c);
      } else if (c != ':') {
        digits.clear();
        break;
      }
    }
    if (digits.size() == 2 || digits.size() == 4) {
      int hours = std::stoi(digits.substr(0, 2));
      int minutes = digits.size() == 4 ? std::stoi(digits.substr(2, 2)) : 0;
      std::int64_t offset = hours * 60 + minutes;
      return s[0] == '-' ? -offset : offset;
    }
  }
  return LocationError(40485, "unrecognized time zone identifier: \"" + std::string(s) + "\"");
}

// millis + a time zone offset, saturating at the ends of the date range.
std::int64_t ShiftMillis(std::int64_t millis, std::int64_t offset_minutes) {
  std::int64_t shifted = 0;
  if (__builtin_add_overflow(millis, offset_minutes * 60000, &shifted)) {
    return offset_minutes > 0 ? INT64_MAX : INT64_MIN;
  }
  return shifted;
}

enum class Part {
  kYear,
  kMonth,
  kDayOfMonth,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kDayOfWeek,
  kDayOfYear,
  kWeek,
  kIsoWeek,
  kIsoWeekYear,
  kIsoDayOfWeek
};

Value ExtractPart(Part part, std::int64_t millis) {
  CivilTime t = ToCivil(millis);
  switch (part) {
    case Part::kYear:
      return Value::Int32(static_cast<std::int32_t>(t.year));
    case Part::kMonth:
      return Value::Int32(t.month);
    case Part::kDayOfMonth:
      return Value::Int32(t.day);
    case Part::kHour:
      return Value::Int32(t.hour);
    case Part::kMinute:
      return Value::Int32(t.minute);
    case Part::kSecond:
      return Value::Int32(t.second);
    case Part::kMillisecond:
      return Value::Int32(t.millisecond);
    case Part::kDayOfWeek:
      return Value::Int32(t.day_of_week);
    case Part::kDayOfYear:
      return Value::Int32(t.day_of_year);
    case Part::kWeek: {
      // Weeks start on Sunday; days before the first Sunday are week 0.
      return Value::Int32((t.day_of_year - t.day_of_week + 7) / 7);
    }
    case Part::kIsoWeek:
    case Part::kIsoWeekYear: {
      int week = 0;
      std::int64_t year = 0;
      IsoWeek(t, &week, &year);
      if (part == Part::kIsoWeek) return Value::Int32(week);
      return Value::Int64(year);
    }
    case Part::kIsoDayOfWeek:
      return Value::Int32(t.day_of_week == 1 ? 7 : t.day_of_week - 1);
  }
  return Value();
}

class DatePartExpression final : public Expression {
 public:
  DatePartExpression(Part part, ExpressionPtr date, ExpressionPtr timezone)
      : part_(part), date_(std::move(date)), timezone_(std::move(timezone)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value date, date_->Evaluate(ctx));
    std::int64_t offset_minutes = 0;
    if (timezone_ != nullptr) {
      QUARRY_ASSIGN_OR_RETURN(Value tz, timezone_->Evaluate(ctx));
      if (tz.nullish()) return Value::Null();
      QUARRY_ASSIGN_OR_RETURN(offset_minutes, ParseTimezone(tz));
    }
    if (date.nullish()) return Value::Null();
    std::int64_t millis = 0;
    if (!ToDateMillis(date.view(), &millis)) {
      return LocationError(
          16006, "can't convert from BSON type " + std::string(TypeName(date)) + " to Date");
    }
    return ExtractPart(part_, ShiftMillis(millis, offset_minutes));
  }

 private:
  Part part_;
  ExpressionPtr date_;
  ExpressionPtr timezone_;
};

template <Part P>
StatusWith<ExpressionPtr> ParseDatePart(std::string_view name, bson::ValueView args,
                                        ParseContext& ctx) {
  bson::ValueView date = args;
  bson::ValueView timezone;
  if (args.type() == Type::kDocument && !args.Document().empty() &&
      args.Document().FirstKey()[0] != '$') {
    for (const bson::Element& e : args.Document()) {
      if (e.key == "date") {
        date = e.value;
      } else if (e.key == "timezone") {
        timezone = e.value;
      } else {
        return LocationError(40535, "unrecognized option to " + std::string(name) + ": \"" +
                                        std::string(e.key) +
                                        "\". Valid options are \"date\" and \"timezone\".");
      }
    }
    if (date.type() == Type::kDocument && date.data() == args.data()) {
      return LocationError(40539, "missing 'date' argument to " + std::string(name) +
                                      ", provided: " + args.ToJson());
    }
  } else if (args.type() == Type::kArray) {
    std::size_t count = args.Document().CountElements();
    if (count != 1) {
      return LocationError(40536, std::string(name) +
                                      " accepts exactly one argument if given an array, but was "
                                      "given " +
                                      std::to_string(count));
    }
    date = args.Document().begin()->value;
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr date_expr, Expression::Parse(date, ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr tz_expr, ParseOptional(timezone, ctx));
  return ExpressionPtr(
      std::make_shared<DatePartExpression>(P, std::move(date_expr), std::move(tz_expr)));
}

// ---- $dateToString ----

const char* const kMonthAbbrev[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kMonthNames[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};

std::string Pad(std::int64_t n, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(n));
  return buf;
}

Status ValidateFormat(std::string_view format) {
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 >= format.size()) {
      return LocationError(18535, "Unmatched '%' at end of format string");
    }
    char c = format[++i];
    if (std::string_view("dGHjLmMSwuUVYzZbB%").find(c) == std::string_view::npos) {
      return LocationError(
          18536, "Invalid format character '%" + std::string(1, c) + "' in format string");
    }
  }
  return Status::OK();
}

std::string FormatDate(std::string_view format, std::int64_t millis, std::int64_t offset_minutes) {
  CivilTime t = ToCivil(ShiftMillis(millis, offset_minutes));
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      out.push_back(format[i]);
      continue;
    }
    switch (format[++i]) {
      case 'd':
        out += Pad(t.day, 2);
        break;
      case 'G': {
        int week = 0;
        std::int64_t year = 0;
        IsoWeek(t, &week, &year);
        out += Pad(year, 4);
        break;
      }
      case 'H':
        out += Pad(t.hour, 2);
        break;
      case 'j':
        out += Pad(t.day_of_year, 3);
        break;
      case 'L':
        out += Pad(t.millisecond, 3);
        break;
      case 'm':
        out += Pad(t.month, 2);
        break;
      case 'M':
        out += Pad(t.minute, 2);
        break;
      case 'S':
        out += Pad(t.second, 2);
        break;
      case 'w':
        out += std::to_string(t.day_of_week);
        break;
      case 'u':
        out += std::to_string(t.day_of_week == 1 ? 7 : t.day_of_week - 1);
        break;
      case 'U':
        out += Pad((t.day_of_year - t.day_of_week + 7) / 7, 2);
        break;
      case 'V': {
        int week = 0;
        std::int64_t year = 0;
        IsoWeek(t, &week, &year);
        out += Pad(week, 2);
        break;
      }
      case 'Y':
        out += Pad(t.year, 4);
        break;
      case 'z': {
        std::int64_t m = offset_minutes < 0 ? -offset_minutes : offset_minutes;
        out += offset_minutes < 0 ? "-" : "+";
        out += Pad(m / 60, 2) + Pad(m % 60, 2);
        break;
      }
      case 'Z':
        out += std::to_string(offset_minutes);
        break;
      case 'b':
        out += kMonthAbbrev[t.month - 1];
        break;
      case 'B':
        out += kMonthNames[t.month - 1];
        break;
      case '%':
        out.push_back('%');
        break;
      default:
        break;
    }
  }
  return out;
}

class DateToStringExpression final : public Expression {
 public:
  DateToStringExpression(ExpressionPtr date, ExpressionPtr format, ExpressionPtr timezone,
                         ExpressionPtr on_null)
      : date_(std::move(date)),
        format_(std::move(format)),
        timezone_(std::move(timezone)),
        on_null_(std::move(on_null)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value date, date_->Evaluate(ctx));
    std::string format = "%Y-%m-%dT%H:%M:%S.%LZ";
    if (format_ != nullptr) {
      QUARRY_ASSIGN_OR_RETURN(Value f, format_->Evaluate(ctx));
      if (f.nullish()) return Value::Null();
      if (f.type() != Type::kString) {
        return LocationError(18533, "$dateToString requires that 'format' be a string, found: " +
                                        std::string(TypeName(f)) + " with value " + f.ToJson());
      }
      format = std::string(f.view().String());
      QUARRY_RETURN_IF_ERROR(ValidateFormat(format));
    }
    std::int64_t offset = 0;
    if (timezone_ != nullptr) {
      QUARRY_ASSIGN_OR_RETURN(Value tz, timezone_->Evaluate(ctx));
      if (tz.nullish()) return Value::Null();
      QUARRY_ASSIGN_OR_RETURN(offset, ParseTimezone(tz));
      if (format_ == nullptr) format = "%Y-%m-%dT%H:%M:%S.%L";
    }
    if (date.nullish()) {
      if (on_null_ != nullptr) return on_null_->Evaluate(ctx);
      return Value::Null();
    }
    std::int64_t millis = 0;
    if (!ToDateMillis(date.view(), &millis)) {
      return LocationError(
          16006, "can't convert from BSON type " + std::string(TypeName(date)) + " to Date");
    }
    return Value::String(FormatDate(format, millis, offset));
  }

 private:
  ExpressionPtr date_;
  ExpressionPtr format_;
  ExpressionPtr timezone_;
  ExpressionPtr on_null_;
};

StatusWith<ExpressionPtr> ParseDateToString(std::string_view name, bson::ValueView args,
                                            ParseContext& ctx) {
  if (args.type() != Type::kDocument) {
    return LocationError(18629, "$dateToString only supports an object as its argument");
  }
  QUARRY_ASSIGN_OR_RETURN(NamedArgs named,
                          ParseNamedArgs(name, args, {"date", "format", "timezone", "onNull"},
                                         {"date"}, 18629, 18534, 18628));
  if (named.Get("format").type() == Type::kString) {
    QUARRY_RETURN_IF_ERROR(ValidateFormat(named.Get("format").String()));
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr date, Expression::Parse(named.Get("date"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr format, ParseOptional(named.Get("format"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr timezone, ParseOptional(named.Get("timezone"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr on_null, ParseOptional(named.Get("onNull"), ctx));
  return ExpressionPtr(std::make_shared<DateToStringExpression>(
      std::move(date), std::move(format), std::move(timezone), std::move(on_null)));
}

}  // namespace

CivilTime ToCivil(std::int64_t millis) {
  CivilTime t;
  const std::int64_t days = FloorDiv(millis, 86400000);
  std::int64_t ms_of_day = millis - days * 86400000;
  t.hour = static_cast<int>(ms_of_day / 3600000);
  t.minute = static_cast<int>((ms_of_day / 60000) % 60);
  t.second = static_cast<int>((ms_of_day / 1000) % 60);
  t.millisecond = static_cast<int>(ms_of_day % 1000);
  // civil_from_days
  const std::int64_t z = days + 719468;
  const std::int64_t era = FloorDiv(z, 146097);
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  t.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  t.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  t.year = yoe + era * 400 + (t.month <= 2);
  // 1970-01-01 was a Thursday (5 with Sunday = 1).
  t.day_of_week = static_cast<int>(((days % 7) + 7 + 4) % 7) + 1;
  t.day_of_year = static_cast<int>(days - DaysFromCivil(t.year, 1, 1) + 1);
  return t;
}

std::int64_t FromCivil(std::int64_t year, std::int64_t month, std::int64_t day, std::int64_t hour,
                       std::int64_t minute, std::int64_t second, std::int64_t millisecond) {
  // Normalize the month first so days_from_civil sees 1..12.
  std::int64_t month0 = month - 1;
  year += FloorDiv(month0, 12);
  month0 -= FloorDiv(month0, 12) * 12;
  std::int64_t days = DaysFromCivil(year, month0 + 1, 1) + (day - 1);
  return ((days * 24 + hour) * 60 + minute) * 60000 + second * 1000 + millisecond;
}

std::string FormatIsoDate(std::int64_t millis) {
  return FormatDate("%Y-%m-%dT%H:%M:%S.%LZ", millis, 0);
}

void AddDateOperators(OperatorTable* table) {
  table->Add("$year", ParseDatePart<Part::kYear>);
  table->Add("$month", ParseDatePart<Part::kMonth>);
  table->Add("$dayOfMonth", ParseDatePart<Part::kDayOfMonth>);
  table->Add("$hour", ParseDatePart<Part::kHour>);
  table->Add("$minute", ParseDatePart<Part::kMinute>);
  table->Add("$second", ParseDatePart<Part::kSecond>);
  table->Add("$millisecond", ParseDatePart<Part::kMillisecond>);
  table->Add("$dayOfWeek", ParseDatePart<Part::kDayOfWeek>);
  table->Add("$dayOfYear", ParseDatePart<Part::kDayOfYear>);
  table->Add("$week", ParseDatePart<Part::kWeek>);
  table->Add("$isoWeek", ParseDatePart<Part::kIsoWeek>);
  table->Add("$isoWeekYear", ParseDatePart<Part::kIsoWeekYear>);
  table->Add("$isoDayOfWeek", ParseDatePart<Part::kIsoDayOfWeek>);
  table->Add("$dateToString", ParseDateToString);
}

}  // namespace quarry::query::expr_internal
