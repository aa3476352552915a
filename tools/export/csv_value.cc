// AppendCsvValue: a switch over the BSON types.
#include "tools/export/csv_value.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "tools/export/json_writer.h"

namespace quarry::tools::exporting {
namespace {

void AppendDouble(double number, std::string* out) {
  // Go's %v, which mongoexport formats cells with, spells the non-finite values this way.
  if (std::isnan(number)) {
    out->append("NaN");
  } else if (std::isinf(number)) {
    out->append(number > 0 ? "+Inf" : "-Inf");
  } else {
    char text[32];
    auto [end, ec] = std::to_chars(text, text + sizeof text, number);
    out->append(text, end);
  }
}

void AppendInt64(std::int64_t number, std::string* out) {
  char text[24];
  auto [end, ec] = std::to_chars(text, text + sizeof text, number);
  out->append(text, end);
}

// The value alone, from the relaxed Extended JSON of the document {"": value}.
void AppendValueJson(const bson_iter_t& value, std::string* out) {
  bson_t wrapper = BSON_INITIALIZER;
  bson_append_iter(&wrapper, "", 0, &value);
  std::string json;
  AppendDocumentJson(wrapper, JsonFormat::kRelaxed, &json);
  bson_destroy(&wrapper);
  constexpr std::string_view kPrefix = "{\"\":";
  if (json.size() > kPrefix.size() + 1 && json.compare(0, kPrefix.size(), kPrefix) == 0) {
    out->append(json, kPrefix.size(), json.size() - kPrefix.size() - 1);
  }
}

// Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil, inverted), so dates
// outside time_t's or gmtime's range still print.
void CivilFromDays(std::int64_t days, std::int64_t* year, int* month, int* day) {
  days += 719468;
  std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  std::int64_t day_of_era = days - era * 146097;
  std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  std::int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  std::int64_t month_index = (5 * day_of_year + 2) / 153;
  *day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  *month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  *year = year_of_era + era * 400 + (*month <= 2 ? 1 : 0);
}

}  // namespace

void AppendIsoDate(std::int64_t millis, std::string* out) {
  constexpr std::int64_t kMillisPerDay = 86400000;
  std::int64_t days = millis / kMillisPerDay;
  std::int64_t in_day = millis % kMillisPerDay;
  if (in_day < 0) {
    in_day += kMillisPerDay;
    --days;
  }
  std::int64_t year = 0;
  int month = 0;
  int day = 0;
  CivilFromDays(days, &year, &month, &day);
  char text[64];
  int length = std::snprintf(
      text, sizeof text, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", static_cast<long long>(year),
      month, day, static_cast<int>(in_day / 3600000), static_cast<int>(in_day / 60000 % 60),
      static_cast<int>(in_day / 1000 % 60), static_cast<int>(in_day % 1000));
  out->append(text, static_cast<std::size_t>(length));
}

void AppendCsvValue(const bson_iter_t& value, std::string* out) {
  switch (bson_iter_type(&value)) {
    case BSON_TYPE_UTF8: {
      uint32_t length = 0;
      const char* text = bson_iter_utf8(&value, &length);
      out->append(text, length);
      return;
    }
    case BSON_TYPE_DOUBLE:
      AppendDouble(bson_iter_double(&value), out);
      return;
    case BSON_TYPE_INT32:
      AppendInt64(bson_iter_int32(&value), out);
      return;
    case BSON_TYPE_INT64:
      AppendInt64(bson_iter_int64(&value), out);
      return;
    case BSON_TYPE_DECIMAL128: {
      bson_decimal128_t decimal;
      char text[BSON_DECIMAL128_STRING];
      if (bson_iter_decimal128(&value, &decimal)) {
        bson_decimal128_to_string(&decimal, text);
        out->append(text);
      }
      return;
    }
    case BSON_TYPE_BOOL:
      out->append(bson_iter_bool(&value) ? "true" : "false");
      return;
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
      return;
    case BSON_TYPE_OID: {
      char hex[25];
      bson_oid_to_string(bson_iter_oid(&value), hex);
      out->append("ObjectId(");
      out->append(hex);
      out->push_back(')');
      return;
    }
    case BSON_TYPE_DATE_TIME:
      AppendIsoDate(bson_iter_date_time(&value), out);
      return;
    default:
      AppendValueJson(value, out);
      return;
  }
}

}  // namespace quarry::tools::exporting
