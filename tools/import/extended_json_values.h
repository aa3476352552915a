// The scalar spellings inside Extended JSON wrappers that JSON itself has no type for: base64
// binary, hexadecimal subtypes, ISO-8601 dates. Shared by the JSON and CSV readers of
// `quarry import`; free of any JSON parser so they are cheap to test.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace quarry::tools::importing {

// Standard base64 (RFC 4648, '+' and '/', '=' padding optional); nullopt when `text` has a
// character outside the alphabet or a length no encoding produces.
std::optional<std::string> DecodeBase64(std::string_view text);

// A binary subtype written as one or two hexadecimal digits ("0", "04", "80").
std::optional<std::uint8_t> ParseHexSubtype(std::string_view text);

// Hexadecimal digits to bytes ("0a1B" -> {0x0a, 0x1b}); nullopt for odd lengths or non-hex.
std::optional<std::string> DecodeHex(std::string_view text);

// An ISO-8601 date-time as Extended JSON writes it, to milliseconds since the Unix epoch:
// "YYYY-MM-DDTHH:MM[:SS[.fff...]]" followed by "Z" or an offset "+HH:MM", "+HHMM" or "+HH".
// A date alone ("YYYY-MM-DD") is midnight UTC. nullopt for anything else or an invalid day.
std::optional<std::int64_t> ParseIsoDateMillis(std::string_view text);

// Days from 1970-01-01 to the given proleptic Gregorian date (negative before it).
std::int64_t DaysFromCivil(std::int64_t year, unsigned month, unsigned day);

}  // namespace quarry::tools::importing
