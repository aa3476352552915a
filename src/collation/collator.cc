// mongod's collation parsing (CollatorFactoryICU) on ICU. ICU4C's objects may be used from
// several threads at once through their const methods (ICU User Guide, "Thread safety"); the
// collator is configured before it is shared and only compareUTF8 and getSortKey, both const,
// are called on it afterwards.
#include "collation/collator.h"

#include <unicode/coll.h>
#include <unicode/locid.h>
#include <unicode/stringpiece.h>
#include <unicode/ucol.h>
#include <unicode/unistr.h>
#include <unicode/uvernum.h>

#include <cmath>
#include <optional>
#include <vector>

#include "bson/builder.h"
#include "collation/spec_text.h"

namespace quarry::collation {

struct Collator::Icu {
  std::unique_ptr<icu::Collator> collator;
};

namespace {

constexpr std::string_view kSimple = "simple";

// What a collation document asks for; unset options take the locale's defaults.
struct Options {
  std::string locale;
  std::optional<bool> case_level;
  std::optional<std::string> case_first;
  std::optional<int> strength;
  std::optional<bool> numeric_ordering;
  std::optional<std::string> alternate;
  std::optional<std::string> max_variable;
  std::optional<bool> normalization;
  std::optional<bool> backwards;
  std::optional<std::string> version;
};

Status WrongType(std::string_view field, bson::ValueView value, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field 'collation." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(bson::TypeAlias(value.type())) +
                                              "', expected type '" + std::string(expected) + "'");
}

Status BadEnum(std::string_view field, std::string_view value) {
  return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) +
                                          "' for field 'collation." + std::string(field) +
                                          "' is not a valid value.");
}

StatusWith<bool> BoolField(std::string_view field, bson::ValueView value) {
  if (value.type() != bson::Type::kBool) return WrongType(field, value, "bool");
  return value.Bool();
}

StatusWith<std::string> StringField(std::string_view field, bson::ValueView value) {
  if (value.type() != bson::Type::kString) return WrongType(field, value, "string");
  return std::string(value.String());
}

StatusWith<std::string> EnumField(std::string_view field, bson::ValueView value,
                                  std::initializer_list<std::string_view> allowed) {
  QUARRY_ASSIGN_OR_RETURN(std::string s, StringField(field, value));
  for (std::string_view option : allowed) {
    if (s == option) return s;
  }
  return BadEnum(field, s);
}

StatusWith<int> StrengthField(bson::ValueView value) {
  if (!value.IsNumber()) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'collation.strength' is the wrong type '" +
                                                std::string(bson::TypeAlias(value.type())) +
                                                "', expected types '[long, int, decimal, double]'");
  }
  const double d = value.AsDouble();
  if (!(d >= 1 && d <= 5) || d != std::floor(d)) {
    return Status(static_cast<ErrorCode>(51024),
                  "BSON field 'collation.strength' value must be >= 1 and <= 5, actual value '" +
                      (value.IsIntegral() ? std::to_string(value.AsInt64()) : value.ToJson()) +
                      "'");
  }
  return static_cast<int>(d);
}

StatusWith<Options> ReadOptions(bson::DocumentView spec) {
  Options options;
  bool has_locale = false;
  for (const bson::Element& e : spec) {
    const std::string_view f = e.key;
    if (f == "locale") {
      QUARRY_ASSIGN_OR_RETURN(options.locale, StringField(f, e.value));
      has_locale = true;
    } else if (f == "caseLevel") {
      QUARRY_ASSIGN_OR_RETURN(options.case_level, BoolField(f, e.value));
    } else if (f == "caseFirst") {
      QUARRY_ASSIGN_OR_RETURN(options.case_first, EnumField(f, e.value, {"upper", "lower", "off"}));
    } else if (f == "strength") {
      QUARRY_ASSIGN_OR_RETURN(options.strength, StrengthField(e.value));
    } else if (f == "numericOrdering") {
      QUARRY_ASSIGN_OR_RETURN(options.numeric_ordering, BoolField(f, e.value));
    } else if (f == "alternate") {
      QUARRY_ASSIGN_OR_RETURN(options.alternate,
                              EnumField(f, e.value, {"non-ignorable", "shifted"}));
    } else if (f == "maxVariable") {
      QUARRY_ASSIGN_OR_RETURN(options.max_variable, EnumField(f, e.value, {"punct", "space"}));
    } else if (f == "normalization") {
      QUARRY_ASSIGN_OR_RETURN(options.normalization, BoolField(f, e.value));
    } else if (f == "backwards") {
      QUARRY_ASSIGN_OR_RETURN(options.backwards, BoolField(f, e.value));
    } else if (f == "version") {
      QUARRY_ASSIGN_OR_RETURN(options.version, StringField(f, e.value));
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field 'collation." + std::string(f) + "' is an unknown field.");
    }
  }
  if (!has_locale) return Status(ErrorCode::kNoSuchKey, "Missing expected field \"locale\"");
  return options;
}

// Sets one attribute; ICU refuses none of the values parsed above, so a failure is ICU's own.
Status SetAttribute(icu::Collator* collator, UColAttribute attribute, UColAttributeValue value,
                    std::string_view field, bson::DocumentView spec) {
  UErrorCode status = U_ZERO_ERROR;
  collator->setAttribute(attribute, value, status);
  if (U_FAILURE(status)) {
    return Status(ErrorCode::kOperationFailed, "Failed to set '" + std::string(field) +
                                                   "' attribute: " + u_errorName(status) +
                                                   ". Collation spec: " + SpecText(spec));
  }
  return Status::OK();
}

UColAttributeValue OnOff(bool on) { return on ? UCOL_ON : UCOL_OFF; }

Status Configure(const Options& options, bson::DocumentView spec, icu::Collator* collator) {
  if (options.case_level) {
    QUARRY_RETURN_IF_ERROR(
        SetAttribute(collator, UCOL_CASE_LEVEL, OnOff(*options.case_level), "caseLevel", spec));
  }
  if (options.case_first) {
    const UColAttributeValue value = *options.case_first == "upper"   ? UCOL_UPPER_FIRST
                                     : *options.case_first == "lower" ? UCOL_LOWER_FIRST
                                                                      : UCOL_OFF;
    QUARRY_RETURN_IF_ERROR(SetAttribute(collator, UCOL_CASE_FIRST, value, "caseFirst", spec));
  }
  if (options.strength) {
    static constexpr UColAttributeValue kStrengths[] = {UCOL_PRIMARY, UCOL_SECONDARY, UCOL_TERTIARY,
                                                        UCOL_QUATERNARY, UCOL_IDENTICAL};
    QUARRY_RETURN_IF_ERROR(
        SetAttribute(collator, UCOL_STRENGTH, kStrengths[*options.strength - 1], "strength", spec));
  }
  if (options.numeric_ordering) {
    QUARRY_RETURN_IF_ERROR(SetAttribute(collator, UCOL_NUMERIC_COLLATION,
                                        OnOff(*options.numeric_ordering), "numericOrdering", spec));
  }
  if (options.alternate) {
    QUARRY_RETURN_IF_ERROR(SetAttribute(
        collator, UCOL_ALTERNATE_HANDLING,
        *options.alternate == "shifted" ? UCOL_SHIFTED : UCOL_NON_IGNORABLE, "alternate", spec));
  }
  if (options.max_variable) {
    UErrorCode status = U_ZERO_ERROR;
    collator->setMaxVariable(
        *options.max_variable == "space" ? UCOL_REORDER_CODE_SPACE : UCOL_REORDER_CODE_PUNCTUATION,
        status);
    if (U_FAILURE(status)) {
      return Status(ErrorCode::kOperationFailed,
                    std::string("Failed to set 'maxVariable' attribute: ") + u_errorName(status) +
                        ". Collation spec: " + SpecText(spec));
    }
  }
  if (options.normalization) {
    QUARRY_RETURN_IF_ERROR(SetAttribute(collator, UCOL_NORMALIZATION_MODE,
                                        OnOff(*options.normalization), "normalization", spec));
  }
  if (options.backwards) {
    QUARRY_RETURN_IF_ERROR(SetAttribute(collator, UCOL_FRENCH_COLLATION, OnOff(*options.backwards),
                                        "backwards", spec));
  }
  return Status::OK();
}

bool IsOn(const icu::Collator& collator, UColAttribute attribute) {
  UErrorCode status = U_ZERO_ERROR;
  return collator.getAttribute(attribute, status) == UCOL_ON;
}

// The fully specified form, read back from the configured collator so that the locale's own
// defaults (caseFirst "upper" in Danish, shifted alternate in Thai) show.
bson::Document FullSpec(const std::string& locale, const icu::Collator& collator) {
  UErrorCode status = U_ZERO_ERROR;
  const UColAttributeValue case_first = collator.getAttribute(UCOL_CASE_FIRST, status);
  const UColAttributeValue strength = collator.getAttribute(UCOL_STRENGTH, status);
  const UColAttributeValue alternate = collator.getAttribute(UCOL_ALTERNATE_HANDLING, status);
  int strength_number = 3;
  switch (strength) {
    case UCOL_PRIMARY:
      strength_number = 1;
      break;
    case UCOL_SECONDARY:
      strength_number = 2;
      break;
    case UCOL_QUATERNARY:
      strength_number = 4;
      break;
    case UCOL_IDENTICAL:
      strength_number = 5;
      break;
    default:
      break;
  }
  bson::DocumentBuilder b;
  b.AppendString("locale", locale);
  b.AppendBool("caseLevel", IsOn(collator, UCOL_CASE_LEVEL));
  b.AppendString("caseFirst", case_first == UCOL_UPPER_FIRST   ? "upper"
                              : case_first == UCOL_LOWER_FIRST ? "lower"
                                                               : "off");
  b.AppendInt32("strength", strength_number);
  b.AppendBool("numericOrdering", IsOn(collator, UCOL_NUMERIC_COLLATION));
  b.AppendString("alternate", alternate == UCOL_SHIFTED ? "shifted" : "non-ignorable");
  b.AppendString("maxVariable",
                 collator.getMaxVariable() == UCOL_REORDER_CODE_SPACE ? "space" : "punct");
  b.AppendBool("normalization", IsOn(collator, UCOL_NORMALIZATION_MODE));
  b.AppendBool("backwards", IsOn(collator, UCOL_FRENCH_COLLATION));
  b.AppendString("version", U_ICU_VERSION);
  return std::move(b).Finish();
}

// mongod's checks of the locale: ICU must know every part of it as given, without
// canonicalizing it or falling back to a parent.
Status ValidateLocale(const std::string& requested, const icu::Collator& collator,
                      bson::DocumentView spec) {
  if (requested.empty()) {
    return Status(ErrorCode::kBadValue,
                  "Field 'locale' cannot be the empty string in: " + SpecText(spec));
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Locale valid = collator.getLocale(ULOC_VALID_LOCALE, status);
  if (U_FAILURE(status)) {
    return Status(ErrorCode::kOperationFailed,
                  std::string("Failed to get locale from icu::Collator: ") + u_errorName(status) +
                      ". Collation spec: " + SpecText(spec));
  }
  const std::string_view valid_name = valid.getName();
  if (valid_name == requested) return Status::OK();
  std::string message = "Field 'locale' is invalid in: " + SpecText(spec);
  if (!valid_name.empty() && valid_name != "root") {
    message += ". Did you mean '" + std::string(valid_name) + "'?";
  }
  return Status(ErrorCode::kBadValue, std::move(message));
}

}  // namespace

Collator::Collator(bson::Document spec, std::unique_ptr<Icu> icu)
    : spec_(std::move(spec)), icu_(std::move(icu)) {}

Collator::~Collator() = default;

StatusWith<CollatorPtr> Collator::Parse(bson::DocumentView spec) {
  QUARRY_ASSIGN_OR_RETURN(Options options, ReadOptions(spec));
  if (options.locale.find('\0') != std::string::npos) {
    return Status(ErrorCode::kBadValue,
                  "Field 'locale' cannot contain null byte. Collation spec: " + SpecText(spec));
  }
  if (options.locale == kSimple) {
    if (spec.CountElements() > 1) {
      return Status(ErrorCode::kFailedToParse,
                    "If locale=simple, no other fields should be present in: " + SpecText(spec));
    }
    return CollatorPtr();
  }
  const icu::Locale locale = icu::Locale::createFromName(options.locale.c_str());
  if (locale.isBogus()) {
    return Status(ErrorCode::kBadValue, "Field 'locale' is not valid in: " + SpecText(spec));
  }
  UErrorCode status = U_ZERO_ERROR;
  auto icu = std::make_unique<Icu>();
  icu->collator.reset(icu::Collator::createInstance(locale, status));
  if (U_FAILURE(status) || icu->collator == nullptr) {
    return Status(ErrorCode::kOperationFailed, std::string("Failed to create collator: ") +
                                                   u_errorName(status) +
                                                   ". Collation spec: " + SpecText(spec));
  }
  QUARRY_RETURN_IF_ERROR(ValidateLocale(options.locale, *icu->collator, spec));
  QUARRY_RETURN_IF_ERROR(Configure(options, spec, icu->collator.get()));
  if (options.version && *options.version != U_ICU_VERSION) {
    return Status(ErrorCode::kIncompatibleCollationVersion,
                  "Requested collation version " + *options.version +
                      " but the only available collator version was " U_ICU_VERSION
                      ". Requested collation spec: " +
                      SpecText(spec));
  }
  bson::Document full = FullSpec(locale.getName(), *icu->collator);
  const bson::DocumentView view = full.view();
  const int strength = static_cast<int>(view.Get("strength").AsInt64());
  if (view.Get("backwards").Bool() && strength == 1) {
    return Status(ErrorCode::kBadValue,
                  "'backwards' is invalid with 'strength' of 1 in: " + SpecText(view));
  }
  if (view.Get("caseFirst").String() != "off" && !view.Get("caseLevel").Bool() && strength < 3) {
    return Status(ErrorCode::kBadValue,
                  "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater "
                  "than 2 in: " +
                      SpecText(view));
  }
  return CollatorPtr(new Collator(std::move(full), std::move(icu)));
}

StatusWith<CollatorPtr> Collator::ParseArgument(bson::ValueView spec, std::string_view where) {
  if (!spec.exists() || spec.type() == bson::Type::kNull) return CollatorPtr();
  if (spec.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + std::string(where) + "collation' is the wrong type '" +
                      std::string(bson::TypeAlias(spec.type())) + "', expected type 'object'");
  }
  return Parse(spec.Document());
}

int Collator::Compare(std::string_view a, std::string_view b) const {
  UErrorCode status = U_ZERO_ERROR;
  const UCollationResult result = icu_->collator->compareUTF8(
      icu::StringPiece(a.data(), static_cast<int32_t>(a.size())),
      icu::StringPiece(b.data(), static_cast<int32_t>(b.size())), status);
  return result == UCOL_LESS ? -1 : (result == UCOL_GREATER ? 1 : 0);
}

void Collator::AppendComparisonKey(std::string_view s, std::string* out) const {
  const icu::UnicodeString text =
      icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  std::uint8_t buffer[256];
  int32_t length = icu_->collator->getSortKey(text, buffer, sizeof(buffer));
  if (length <= static_cast<int32_t>(sizeof(buffer))) {
    // The key ends with a zero byte that orders nothing: leave it out.
    out->append(reinterpret_cast<const char*>(buffer), length > 0 ? length - 1 : 0);
    return;
  }
  std::vector<std::uint8_t> large(static_cast<std::size_t>(length));
  length = icu_->collator->getSortKey(text, large.data(), length);
  out->append(reinterpret_cast<const char*>(large.data()), length > 0 ? length - 1 : 0);
}

bool Collator::Equals(const bson::StringComparator& other) const {
  const auto* collator = dynamic_cast<const Collator*>(&other);
  return collator != nullptr && collator->spec_.bytes() == spec_.bytes();
}

}  // namespace quarry::collation
