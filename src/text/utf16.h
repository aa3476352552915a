// UTF-8 <-> UTF-16, for the filters that count and index text as Java's strings do (a character
// outside the Basic Multilingual Plane is two units there). Invalid input becomes U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace quarry::text {

std::u16string ToUtf16(std::string_view text);
std::string FromUtf16(std::u16string_view text);

}  // namespace quarry::text
