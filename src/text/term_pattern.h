// The patterns of $search's wildcard and regex operators, each matched against a whole term of
// the index: wildcard's `*` (any characters) and `?` (one), and Lucene's regular expressions.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::text {

class TermPattern {
 public:
  // `*` matches any run of characters, `?` one, `\` makes the next character literal.
  static StatusWith<TermPattern> Wildcard(std::string_view pattern);
  // Lucene's regular expression syntax, matched against the whole term: `.`, `?`, `*`, `+`,
  // `{n,m}`, `|`, groups, classes (`[a-z]`, `[^a-z]`), `\d \w \s` and their negations, quoted
  // literals (`"..."`), `@` (any string) and `#` (nothing). Errors: BadValue for a malformed
  // pattern, NotImplemented for Lucene's `&`, `~` and `<n-m>`.
  static StatusWith<TermPattern> Regex(std::string_view pattern);

  bool Matches(std::string_view term) const;
  // What every matching term starts with: where a scan of the sorted terms may begin and end.
  const std::string& literal_prefix() const { return prefix_; }

 private:
  struct Compiled;
  static StatusWith<TermPattern> Compile(const std::string& pcre, std::string prefix,
                                         std::string_view original);

  std::shared_ptr<const Compiled> compiled_;
  std::string prefix_;
};

}  // namespace quarry::text
