// Regex: MongoDB's regular expression options on top of PCRE2.
#include "query/value/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <string>

#include "query/value/evaluation_error.h"

namespace quarry::query {

namespace {

// Bounds on one match. Backtracking steps: PCRE2's own default, reached in well under a second
// even by patterns such as /(a+)+$/ against a long run of a's, which otherwise take time
// exponential in the subject. Nesting depth and backtracking memory: enough for any ordinary
// pattern, small enough that a pathological one fails instead of growing without bound.
constexpr std::uint32_t kMatchLimit = 10'000'000;
constexpr std::uint32_t kDepthLimit = 100'000;
constexpr std::uint32_t kHeapLimitKiB = 64 * 1024;

pcre2_match_context* NewBoundedContext() {
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  if (context == nullptr) return nullptr;
  pcre2_set_match_limit(context, kMatchLimit);
  pcre2_set_depth_limit(context, kDepthLimit);
  pcre2_set_heap_limit(context, kHeapLimitKiB);
  return context;
}

// PCRE2's UTF-8 check failures (-3 to -23): such a subject is not text, and does not match.
bool IsInvalidUtf8(int rc) { return rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21; }

}  // namespace

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

StatusWith<bool> Regex::Search(std::string_view subject) const {
  // Match data and context are per thread so that one compiled pattern serves concurrent
  // readers; the match data grows to the largest pattern this thread has used.
  struct MatchState {
    pcre2_match_data* data = pcre2_match_data_create(16, nullptr);
    pcre2_match_context* context = NewBoundedContext();
    ~MatchState() {
      pcre2_match_context_free(context);
      pcre2_match_data_free(data);
    }
  };
  thread_local MatchState state;
  if (state.data == nullptr || state.context == nullptr) {
    return Status(ErrorCode::kExceededMemoryLimit, "no memory to run a regular expression");
  }
  int rc = pcre2_match(compiled_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()),
                       subject.size(), 0, 0, state.data, state.context);
  // rc 0 means the ovector was too small to hold every group: still a match.
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH || IsInvalidUtf8(rc)) return false;
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(rc, message, sizeof(message));
  return Status(static_cast<ErrorCode>(51156),
                "Error occurred while executing the regular expression /" + pattern_ +
                    "/. Result code: " + std::to_string(rc) + " (" +
                    reinterpret_cast<const char*>(message) + ")");
}

bool Regex::Matches(std::string_view subject) const {
  StatusWith<bool> found = Search(subject);
  if (found.ok()) return found.value();
  ReportEvaluationError(found.status());
  return false;
}

}  // namespace quarry::query
