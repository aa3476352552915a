#include "text/utf16.h"

#include <unicode/ustring.h>

#include <algorithm>
#include <cstdint>

namespace quarry::text {

std::u16string ToUtf16(std::string_view text) {
  std::int32_t units = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8WithSub(nullptr, 0, &units, text.data(), static_cast<std::int32_t>(text.size()),
                       0xFFFD, nullptr, &status);
  std::u16string out(static_cast<std::size_t>(std::max(units, 0)), u'\0');
  status = U_ZERO_ERROR;
  u_strFromUTF8WithSub(out.data(), units, nullptr, text.data(),
                       static_cast<std::int32_t>(text.size()), 0xFFFD, nullptr, &status);
  return out;
}

std::string FromUtf16(std::u16string_view text) {
  std::int32_t bytes = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strToUTF8WithSub(nullptr, 0, &bytes, text.data(), static_cast<std::int32_t>(text.size()),
                     0xFFFD, nullptr, &status);
  std::string out(static_cast<std::size_t>(std::max(bytes, 0)), '\0');
  status = U_ZERO_ERROR;
  u_strToUTF8WithSub(out.data(), bytes, nullptr, text.data(),
                     static_cast<std::int32_t>(text.size()), 0xFFFD, nullptr, &status);
  return out;
}

}  // namespace quarry::text
