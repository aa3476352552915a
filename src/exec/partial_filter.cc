#include "exec/partial_filter.h"

#include <string_view>
#include <vector>

#include "bson/compare.h"
#include "bson/types.h"

namespace quarry::exec {
namespace {

using query::CompareOp;
using query::PathCondition;

// Whether `a` and `b` are compared by value rather than by type (numbers with numbers, strings
// with strings...), as a range condition compares.
bool SameBracket(bson::ValueView a, bson::ValueView b) {
  return bson::CanonicalTypeRank(a.type()) == bson::CanonicalTypeRank(b.type());
}

// Whether the query condition `q` implies the field condition `op value`.
bool ConditionImplies(const PathCondition& q, std::string_view op, bson::ValueView value) {
  if (op == "$exists") {
    if (!value.Truthy()) return false;
    switch (q.op) {
      case CompareOp::kRegex:
        return true;
      case CompareOp::kIn:
        for (const bson::Element& e : q.value.Document()) {
          if (e.value.type() == bson::Type::kNull) return false;
        }
        return !q.value.Document().empty();
      default:
        return q.value.type() != bson::Type::kNull && q.value.type() != bson::Type::kUndefined &&
               q.value.type() != bson::Type::kMinKey && q.value.type() != bson::Type::kMaxKey;
    }
  }
  // Values the query lets through, each tested against the partial condition.
  auto all_values_satisfy = [&](const auto& test) {
    if (q.op == CompareOp::kEq) return test(q.value, /*exact=*/true);
    if (q.op != CompareOp::kIn || q.value.Document().empty()) return false;
    for (const bson::Element& e : q.value.Document()) {
      if (!test(e.value, true)) return false;
    }
    return true;
  };
  if (op == "$eq") {
    return q.op == CompareOp::kEq && q.value.type() != bson::Type::kArray &&
           bson::CompareValues(q.value, value) == 0;
  }
  const bool lower = op == "$gt" || op == "$gte";
  const bool strict = op == "$gt" || op == "$lt";
  if (!lower && op != "$lt" && op != "$lte") return false;
  // `v` satisfies the partial bound; `exact`: v itself is a value (not a bound of the query).
  auto within = [&](bson::ValueView v, bool) {
    if (!SameBracket(v, value) || v.type() == bson::Type::kArray) return false;
    const int c = bson::CompareValues(v, value);
    return lower ? (strict ? c > 0 : c >= 0) : (strict ? c < 0 : c <= 0);
  };
  if (q.op == CompareOp::kEq || q.op == CompareOp::kIn) return all_values_satisfy(within);
  // A query range on the same side, at least as tight.
  const bool q_lower = q.op == CompareOp::kGt || q.op == CompareOp::kGte;
  const bool q_upper = q.op == CompareOp::kLt || q.op == CompareOp::kLte;
  if (!(lower ? q_lower : q_upper) || !SameBracket(q.value, value)) return false;
  const int c = bson::CompareValues(q.value, value);
  const bool q_strict = q.op == CompareOp::kGt || q.op == CompareOp::kLt;
  if (lower) return c > 0 || (c == 0 && (q_strict || !strict));
  return c < 0 || (c == 0 && (q_strict || !strict));
}

bool FieldImplied(const std::vector<PathCondition>& conjuncts, std::string_view path,
                  std::string_view op, bson::ValueView value) {
  for (const PathCondition& q : conjuncts) {
    if (q.path == path && ConditionImplies(q, op, value)) return true;
  }
  return false;
}

bool Implied(const std::vector<PathCondition>& conjuncts, bson::DocumentView partial) {
  for (const bson::Element& e : partial) {
    if (e.key == "$and") {
      if (e.value.type() != bson::Type::kArray) return false;
      for (const bson::Element& clause : e.value.Document()) {
        if (clause.value.type() != bson::Type::kDocument ||
            !Implied(conjuncts, clause.value.Document())) {
          return false;
        }
      }
      continue;
    }
    if (e.key.starts_with('$')) return false;
    const bool operators = e.value.type() == bson::Type::kDocument && !e.value.Document().empty() &&
                           e.value.Document().FirstKey().starts_with('$');
    if (!operators) {
      if (e.value.type() == bson::Type::kRegex) return false;
      if (!FieldImplied(conjuncts, e.key, "$eq", e.value)) return false;
      continue;
    }
    for (const bson::Element& condition : e.value.Document()) {
      if (!FieldImplied(conjuncts, e.key, condition.key, condition.value)) return false;
    }
  }
  return true;
}

}  // namespace

bool FilterImplies(const query::Matcher& query, bson::DocumentView partial_filter) {
  return Implied(query.Conjuncts(), partial_filter);
}

}  // namespace quarry::exec
