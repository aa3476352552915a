// Regex: MongoDB's regular expression options on top of PCRE2.
#include "query/value/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace quarry::query {

struct Regex::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() {
    if (code != nullptr) pcre2_code_free(code);
  }
};

StatusWith<Regex> Regex::Compile(std::string_view pattern, std::string_view options) {
  std::uint32_t flags = PCRE2_UTF;
  for (char option : options) {
    switch (option) {
      case 'i':
        flags |= PCRE2_CASELESS;
        break;
      case 'm':
        flags |= PCRE2_MULTILINE;
        break;
      case 's':
        flags |= PCRE2_DOTALL;
        break;
      case 'x':
        flags |= PCRE2_EXTENDED;
        break;
      case 'u':  // UTF-8 is always on
        break;
      default:
        return Status(ErrorCode::kBadValue,
                      std::string("invalid flag in regex options: ") + option);
    }
  }
  if (pattern.find('\0') != std::string_view::npos) {
    return Status(ErrorCode::kBadValue, "Regular expression cannot contain an embedded null byte");
  }
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   flags, &error_code, &error_offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    return Status(static_cast<ErrorCode>(51091), std::string("Regular expression is invalid: ") +
                                                     reinterpret_cast<const char*>(message));
  }
  // JIT is an optimisation only: without it (unsupported CPU, no memory) matching still works.
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  auto compiled = std::make_shared<Compiled>();
  compiled->code = code;
  Regex regex;
  regex.pattern_ = std::string(pattern);
  regex.options_ = std::string(options);
  regex.compiled_ = std::move(compiled);
  return regex;
}

bool Regex::Matches(std::string_view subject) const {
  // Match data is per thread so that one compiled pattern serves concurrent readers; it grows
  // to the largest pattern this thread has used.
  struct MatchData {
    pcre2_match_data* data = pcre2_match_data_create(16, nullptr);
    ~MatchData() { pcre2_match_data_free(data); }
  };
  thread_local MatchData match_data;
  if (match_data.data == nullptr) return false;
  int rc = pcre2_match(compiled_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                       subject.size(), 0, 0, match_data.data, nullptr);
  // rc 0 means the ovector was too small to hold every group: still a match.
  return rc >= 0;
}

}  // namespace quarry::query
