#include "commands/ddl/capped_options.h"

#include <cmath>
#include <limits>
#include <string>

namespace quarry::commands {
namespace {

constexpr std::int64_t kMaxCappedDocumentsBound = std::int64_t{1} << 31;

Status WrongType(std::string_view command, std::string_view field, bson::ValueView value,
                 std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(command) + "." +
                                              std::string(field) + "' is the wrong type '" +
                                              std::string(bson::TypeAlias(value.type())) +
                                              "', expected types '" + std::string(expected));
}

// mongod's IDL lists the number types of create's fields and of collMod's differently.
Status NotANumber(std::string_view command, std::string_view field, bson::ValueView value) {
  return WrongType(
      command, field, value,
      command == "create" ? "[long, int, decimal, double']" : "[double, int, long, decimal]'");
}

Status OutOfRange(std::string_view field, std::string_view bound, std::int64_t value) {
  return Status(static_cast<ErrorCode>(51024),
                "BSON field '" + std::string(field) + "' value must be " + std::string(bound) +
                    ", actual value '" + std::to_string(value) + "'");
}

// A number as mongod's safeInt64 reads it: doubles truncated toward zero, NaN as 0.
std::int64_t SafeInt64(bson::ValueView value) {
  if (value.type() == bson::Type::kDouble && std::isnan(value.Double())) return 0;
  return value.AsInt64();
}

bool Given(bson::ValueView value) { return value.exists() && value.type() != bson::Type::kNull; }

void AppendNumber(bson::DocumentBuilder* b, std::string_view key, std::int64_t n) {
  if (n >= std::numeric_limits<std::int32_t>::min() &&
      n <= std::numeric_limits<std::int32_t>::max()) {
    b->AppendInt32(key, static_cast<std::int32_t>(n));
  } else {
    b->AppendInt64(key, n);
  }
}

}  // namespace

StatusWith<std::int64_t> ParseCappedSize(std::string_view command, std::string_view field,
                                         bson::ValueView value) {
  if (!value.IsNumber()) return NotANumber(command, field, value);
  const std::int64_t size = SafeInt64(value);
  if (size < 1) return OutOfRange(field, ">= 1", size);
  if (size > kMaxCappedBytes)
    return OutOfRange(field, "<= " + std::to_string(kMaxCappedBytes), size);
  return size;
}

StatusWith<std::int64_t> ParseCappedMax(std::string_view command, std::string_view field,
                                        bson::ValueView value) {
  if (!value.IsNumber()) return NotANumber(command, field, value);
  const std::int64_t max = SafeInt64(value);
  if (max >= kMaxCappedDocumentsBound) {
    return OutOfRange(field, "< " + std::to_string(kMaxCappedDocumentsBound), max);
  }
  return max <= 0 ? kNoCappedMax : max;
}

StatusWith<std::optional<CappedOptions>> ParseCreateCapped(bson::DocumentView body) {
  bool capped = false;
  std::optional<std::int64_t> size;
  std::optional<std::int64_t> max;
  for (const bson::Element& e : body) {
    if (!Given(e.value)) continue;
    if (e.key == "capped") {
      if (!e.value.IsNumber() && e.value.type() != bson::Type::kBool) {
        return WrongType("create", "capped", e.value, "[bool, long, int, decimal, double']");
      }
      capped = e.value.Truthy();
    } else if (e.key == "size") {
      QUARRY_ASSIGN_OR_RETURN(size, ParseCappedSize("create", "size", e.value));
    } else if (e.key == "max") {
      QUARRY_ASSIGN_OR_RETURN(max, ParseCappedMax("create", "max", e.value));
    }
  }
  if (capped && !size.has_value()) {
    return Status(ErrorCode::kInvalidOptions, "the 'size' field is required when 'capped' is true");
  }
  if (!capped && (size.has_value() || max.has_value())) {
    return Status(ErrorCode::kInvalidOptions,
                  "the 'capped' field needs to be true when either the 'size' or 'max' fields are "
                  "present");
  }
  if (!capped) return std::optional<CappedOptions>();
  return std::optional<CappedOptions>(CappedOptions{.size = *size, .max = max});
}

void AppendCappedOptions(const CappedOptions& capped, bson::DocumentBuilder* b) {
  b->AppendBool("capped", true);
  AppendNumber(b, "size", capped.size);
  if (capped.max.has_value()) AppendNumber(b, "max", *capped.max);
}

}  // namespace quarry::commands
