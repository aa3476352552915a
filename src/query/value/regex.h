// MongoDB regular expressions ($regex, /re/ values, $in regexes) compiled with PCRE2.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::query {

// A compiled pattern. Immutable; copies share the compiled code; Matches is thread-safe.
class Regex {
 public:
  // Compiles `pattern` with MongoDB's `options` letters: i (case-insensitive), m (multi-line
  // anchors), s (dot matches newline), x (extended), u (accepted, UTF-8 is always on). Fails
  // with BadValue "invalid flag in regex options: z" for other letters, and with code 51091
  // "Regular expression is invalid: <reason>" when PCRE2 rejects the pattern.
  static StatusWith<Regex> Compile(std::string_view pattern, std::string_view options);

  // True if the pattern matches somewhere in `subject` (unanchored, as MongoDB's $regex).
  // Subjects that are not valid UTF-8 do not match. Matching is bounded (PCRE2's match and
  // depth limits), so a pattern that backtracks catastrophically stops early: that fails with
  // code 51156 "Error occurred while executing the regular expression ...".
  StatusWith<bool> Search(std::string_view subject) const;

  // Search for callers that answer a bool: an error is reported to the thread's
  // EvaluationErrorSink (query/value/evaluation_error.h) and the subject does not match.
  bool Matches(std::string_view subject) const;

  const std::string& pattern() const { return pattern_; }
  const std::string& options() const { return options_; }

 private:
  struct Compiled;
  std::string pattern_;
  std::string options_;
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace quarry::query
