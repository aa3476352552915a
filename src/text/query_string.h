// Atlas Search's queryString operator: a query in Lucene's classic query syntax read into the
// operators $search evaluates (text, phrase, wildcard, regex, term ranges and compound).
#pragma once

#include <string_view>

#include "base/status.h"
#include "text/search_operator.h"

namespace quarry::text {

// Reads `query` as Lucene's classic QueryParser does, its default operator OR: words (text),
// quoted phrases (`~N`: slop), `word~N` (fuzzy: N edits, at most 2, 2 without N; an N below 1
// is Lucene's older similarity), words holding `*` or `?` (wildcard; not as the first
// character), `/re/` (regex; like a wildcard, normalized by the analyzer), `[a TO b]`, `{a TO b}`
// and mixed (ranges of terms, `*` an open end), `field:` (else `default_path`), parentheses,
// `AND`/`&&`, `OR`/`||`, `NOT`/`!`, `+`, `-`, `^N` (boost) and `\` escapes. `a AND b OR c` requires
// a and b and leaves c optional, as Lucene's parser does. Words and phrases whose analysis leaves
// no term (stop words) drop out of their group when evaluated. Errors: BadValue naming what is
// malformed, NotImplemented for `*:*` and other fields named `*`.
StatusWith<SearchOperator> ParseQueryString(std::string_view query, std::string_view default_path);

}  // namespace quarry::text
