// What the readers of $search's operators share: their errors, the options every operator has
// (paths, score, clauses), and the dispatch by name that operators holding operators call back.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/search_operator.h"

namespace quarry::text::internal {

// Atlas's operators that Quarry does not evaluate yet; each answers NotImplemented by name.
inline constexpr std::array<std::string_view, 4> kNotYetOperators = {"hasAncestor", "hasRoot",
                                                                     "knnBeta", "span"};

Status Bad(std::string message);
Status NotYet(std::string what);
// "<at>.<key>" is not a known option.
Status Unknown(std::string_view at, std::string_view key);

std::optional<std::int64_t> WholeNumber(bson::ValueView value);
// A path, {value}, {wildcard: <pattern>}, or an array of them; with `multi_allowed`, also
// {value, multi} (as MultiPath).
StatusWith<std::vector<std::string>> Paths(bson::ValueView value, const std::string& at,
                                           bool multi_allowed = false);
// score: {boost: {value} | {path, undefined}} | {constant: {value}}, into `op`.
Status ParseScore(bson::ValueView value, const std::string& at, SearchOperator* op);
// A compound clause: one operator document or an array of them.
Status ParseClauses(bson::ValueView value, const std::string& at, std::vector<SearchOperator>* out);
// The operator `name` given `spec`, its errors naming `at`.
StatusWith<SearchOperator> ParseAt(std::string_view name, bson::ValueView spec,
                                   const std::string& at);

// The operators that hold operators (search_operator_parse_compound.cc).
Status ParseCompound(bson::DocumentView spec, const std::string& at, SearchOperator* op);
Status ParseEmbeddedDocument(bson::DocumentView spec, const std::string& at, SearchOperator* op);
StatusWith<SearchOperator> ParseQueryStringOperator(bson::ValueView spec, const std::string& at);

}  // namespace quarry::text::internal
