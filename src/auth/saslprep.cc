// SASLprep through ICU's StringPrep with its RFC 4013 profile.
#include "auth/saslprep.h"

#include <unicode/usprep.h>
#include <unicode/ustring.h>

#include <memory>
#include <vector>

namespace quarry::auth {
namespace {

bool IsPrintableAscii(std::string_view text) {
  for (char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

Status PrepError(std::string_view what) {
  return Status(ErrorCode::kBadValue, "Error SASLPrepping input: " + std::string(what));
}

}  // namespace

StatusWith<std::string> SaslPrep(std::string_view text) {
  if (IsPrintableAscii(text)) return std::string(text);
  UErrorCode error = U_ZERO_ERROR;
  std::unique_ptr<UStringPrepProfile, decltype(&usprep_close)> profile(
      usprep_openByType(USPREP_RFC4013_SASLPREP, &error), &usprep_close);
  if (U_FAILURE(error)) return PrepError(u_errorName(error));
  // UTF-8 -> UTF-16, prepare, UTF-16 -> UTF-8.
  int32_t utf16_length = 0;
  error = U_ZERO_ERROR;
  u_strFromUTF8(nullptr, 0, &utf16_length, text.data(), static_cast<int32_t>(text.size()), &error);
  if (error != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(error)) return PrepError("invalid UTF-8");
  std::vector<UChar> utf16(static_cast<std::size_t>(utf16_length) + 1);
  error = U_ZERO_ERROR;
  u_strFromUTF8(utf16.data(), static_cast<int32_t>(utf16.size()), &utf16_length, text.data(),
                static_cast<int32_t>(text.size()), &error);
  if (U_FAILURE(error)) return PrepError("invalid UTF-8");
  std::vector<UChar> prepared(utf16.size() * 4 + 16);
  error = U_ZERO_ERROR;
  int32_t prepared_length =
      usprep_prepare(profile.get(), utf16.data(), utf16_length, prepared.data(),
                     static_cast<int32_t>(prepared.size()), USPREP_DEFAULT, nullptr, &error);
  if (error == U_BUFFER_OVERFLOW_ERROR) {
    prepared.resize(static_cast<std::size_t>(prepared_length) + 1);
    error = U_ZERO_ERROR;
    prepared_length =
        usprep_prepare(profile.get(), utf16.data(), utf16_length, prepared.data(),
                       static_cast<int32_t>(prepared.size()), USPREP_DEFAULT, nullptr, &error);
  }
  if (U_FAILURE(error)) return PrepError(u_errorName(error));
  int32_t utf8_length = 0;
  error = U_ZERO_ERROR;
  u_strToUTF8(nullptr, 0, &utf8_length, prepared.data(), prepared_length, &error);
  if (error != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(error)) return PrepError(u_errorName(error));
  std::string out(static_cast<std::size_t>(utf8_length), '\0');
  error = U_ZERO_ERROR;
  u_strToUTF8(out.data(), utf8_length, &utf8_length, prepared.data(), prepared_length, &error);
  if (U_FAILURE(error) && error != U_STRING_NOT_TERMINATED_WARNING)
    return PrepError(u_errorName(error));
  return out;
}

}  // namespace quarry::auth
