// The filter tree's nodes and leaf predicates: how each operator tests a value.
#include <algorithm>
#include <cmath>

#include "bson/compare.h"
#include "query/match/matcher_internal.h"

namespace quarry::query {
namespace {

// mongod's BSONElement::canonicalType, except that missing and undefined share a bracket of
// their own (mongod gives both 0) apart from null's, which the comparison rules need.
constexpr int kUndefinedBracket = -1000;

int Bracket(bson::ValueView value) {
  if (!value.exists() || value.type() == bson::Type::kUndefined) return kUndefinedBracket;
  return bson::CanonicalTypeRank(value.type());
}

bool IsNaNNumber(bson::ValueView value) {
  return (value.type() == bson::Type::kDouble || value.type() == bson::Type::kDecimal128) &&
         std::isnan(value.AsDouble());
}

bool IsSubjectOfRegex(bson::ValueView value) {
  return value.type() == bson::Type::kString || value.type() == bson::Type::kSymbol;
}

bool SameRegexValue(bson::ValueView value, const Regex& regex) {
  if (value.type() != bson::Type::kRegex) return false;
  bson::RegexView view = value.Regex();
  return view.pattern == regex.pattern() && view.options == regex.options();
}

}  // namespace

bool PathNode::Matches(bson::ValueView root, MatchDetails* details) const {
  return TraversePath(root, path_, predicate_->ExpandsLeafArrays(), [&](const PathValue& reached) {
    if (!predicate_->Test(reached.value, details)) return false;
    if (details != nullptr && reached.array_index.has_value()) {
      details->array_index = reached.array_index;
    }
    return true;
  });
}

bool AndNode::Matches(bson::ValueView root, MatchDetails* details) const {
  for (const MatchNodePtr& child : children_) {
    if (!child->Matches(root, details)) return false;
  }
  return true;
}

bool AndNode::MatchesSingle(bson::ValueView value, MatchDetails* details) const {
  for (const MatchNodePtr& child : children_) {
    if (!child->MatchesSingle(value, details)) return false;
  }
  return true;
}

// $or does not report array positions, as in mongod: the positional operator is undefined
// when the match came through $or.
bool OrNode::Matches(bson::ValueView root, MatchDetails*) const {
  for (const MatchNodePtr& child : children_) {
    if (child->Matches(root, nullptr)) return true;
  }
  return false;
}

bool OrNode::MatchesSingle(bson::ValueView value, MatchDetails*) const {
  for (const MatchNodePtr& child : children_) {
    if (child->MatchesSingle(value, nullptr)) return true;
  }
  return false;
}

// mongod's ComparisonMatchExpressionBase::matchesSingleElement.
bool ComparisonPredicate::Test(bson::ValueView value, MatchDetails*) const {
  const int value_bracket = Bracket(value);
  const int rhs_bracket = Bracket(rhs_);
  if (value_bracket != rhs_bracket) {
    // Missing and undefined compare equal to null.
    const int null_bracket = bson::CanonicalTypeRank(bson::Type::kNull);
    if ((value_bracket == kUndefinedBracket && rhs_bracket == null_bracket) ||
        (rhs_bracket == kUndefinedBracket && value_bracket == null_bracket)) {
      return op_ == CompareOp::kEq || op_ == CompareOp::kLte || op_ == CompareOp::kGte;
    }
    // MinKey and MaxKey bound every other bracket.
    if (rhs_.type() == bson::Type::kMaxKey) return op_ == CompareOp::kLt || op_ == CompareOp::kLte;
    if (rhs_.type() == bson::Type::kMinKey) return op_ == CompareOp::kGt || op_ == CompareOp::kGte;
    return false;
  }
  if (value.IsNumber()) {
    const bool value_nan = IsNaNNumber(value);
    const bool rhs_nan = IsNaNNumber(rhs_);
    if (value_nan || rhs_nan) {
      // NaN equals NaN and is otherwise unordered.
      if (op_ == CompareOp::kLt || op_ == CompareOp::kGt) return false;
      return value_nan && rhs_nan;
    }
  }
  const int c = bson::CompareValues(value, rhs_, collator_);
  switch (op_) {
    case CompareOp::kEq:
      return c == 0;
    case CompareOp::kLt:
      return c < 0;
    case CompareOp::kLte:
      return c <= 0;
    case CompareOp::kGt:
      return c > 0;
    case CompareOp::kGte:
      return c >= 0;
    case CompareOp::kIn:
    case CompareOp::kRegex:
    case CompareOp::kExists:
    case CompareOp::kElemMatch:
      break;  // other predicates'
  }
  return false;
}

InPredicate::InPredicate(bson::ValueView operand, std::vector<bson::ValueView> equalities,
                         std::vector<Regex> regexes, const bson::StringComparator* collator)
    : operand_(operand),
      equalities_(std::move(equalities)),
      regexes_(std::move(regexes)),
      collator_(collator) {
  for (bson::ValueView value : equalities_) {
    if (value.type() == bson::Type::kNull) has_null_ = true;
  }
  std::sort(equalities_.begin(), equalities_.end(), [this](bson::ValueView a, bson::ValueView b) {
    return bson::CompareValues(a, b, collator_) < 0;
  });
}

bool InPredicate::Test(bson::ValueView value, MatchDetails*) const {
  if (!value.exists() || value.IsNullish()) {
    if (has_null_) return true;
    if (!value.exists()) return false;
  }
  auto it = std::lower_bound(equalities_.begin(), equalities_.end(), value,
                             [this](bson::ValueView a, bson::ValueView b) {
                               return bson::CompareValues(a, b, collator_) < 0;
                             });
  if (it != equalities_.end() && bson::CompareValues(*it, value, collator_) == 0) return true;
  for (const Regex& regex : regexes_) {
    if (IsSubjectOfRegex(value) ? regex.Matches(value.String()) : SameRegexValue(value, regex)) {
      return true;
    }
  }
  return false;
}

bool TypePredicate::Test(bson::ValueView value, MatchDetails*) const {
  if (!value.exists()) return false;
  if (any_number_ && value.IsNumber()) return true;
  return std::find(types_.begin(), types_.end(), value.type()) != types_.end();
}

bool RegexPredicate::Test(bson::ValueView value, MatchDetails*) const {
  if (IsSubjectOfRegex(value)) return regex_.Matches(value.String());
  return SameRegexValue(value, regex_);
}

bool ModPredicate::Test(bson::ValueView value, MatchDetails*) const {
  if (!value.IsNumber()) return false;
  if (value.type() == bson::Type::kDouble || value.type() == bson::Type::kDecimal128) {
    if (!std::isfinite(value.AsDouble())) return false;
  }
  const std::int64_t n = value.AsInt64();
  if (divisor_ == -1) return remainder_ == 0;  // n % -1 is 0, and INT64_MIN % -1 traps
  return n % divisor_ == remainder_;
}

bool SizePredicate::Test(bson::ValueView value, MatchDetails*) const {
  if (value.type() != bson::Type::kArray) return false;
  return static_cast<std::int64_t>(value.Document().CountElements()) == size_;
}

bool BitsPredicate::Test(bson::ValueView value, MatchDetails*) const {
  // IsSet(position) for the value's bits: two's complement for integers (sign-extended past
  // bit 63), little-endian bytes for binary data (zero past its end).
  std::int64_t number = 0;
  std::string_view bytes;
  const bool is_number = value.IsNumber();
  if (is_number) {
    if (!value.IsIntegral()) return false;
    number = value.AsInt64();
  } else if (value.type() == bson::Type::kBinary) {
    bytes = value.Binary().data;
  } else {
    return false;
  }
  auto is_set = [&](std::uint32_t position) {
    if (is_number) {
      if (position >= 64) return number < 0;
      return ((static_cast<std::uint64_t>(number) >> position) & 1u) != 0;
    }
    const std::size_t byte = position / 8;
    if (byte >= bytes.size()) return false;
    return ((static_cast<unsigned char>(bytes[byte]) >> (position % 8)) & 1u) != 0;
  };
  switch (op_) {
    case BitsOp::kAllSet:
      return std::all_of(positions_.begin(), positions_.end(), is_set);
    case BitsOp::kAnySet:
      return std::any_of(positions_.begin(), positions_.end(), is_set);
    case BitsOp::kAllClear:
      return std::none_of(positions_.begin(), positions_.end(), is_set);
    case BitsOp::kAnyClear:
      return !std::all_of(positions_.begin(), positions_.end(), is_set);
  }
  return false;
}

namespace {

// Whether some component is all digits: it may name an array position, which index keys and the
// filter see differently through nested arrays.
bool HasDigitsComponent(std::string_view path) {
  const FieldPath parsed = FieldPath::FromDotted(path);
  for (std::size_t part_idx = 0; part_idx < parsed.size(); ++part_idx) {
    const std::string_view part = parsed[part_idx];
    if (!part.empty() &&
        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return true;
    }
  }
  return false;
}

}  // namespace

ElemMatchObjectPredicate::ElemMatchObjectPredicate(const FieldPath& path, MatchNodePtr sub)
    : sub_(std::move(sub)) {
  if (path.empty()) return;
  std::vector<PathCondition> inner;
  sub_->AppendBoundingConjuncts(&inner);
  nested_paths_.push_back(path.dotted());  // the front: this $elemMatch's own path
  for (PathCondition& condition : inner) {
    // A matching element meets each positive condition on its own fields, so the document holds
    // a value there that meets it. Negations are left to the filter: mongod bounds them inside
    // $elemMatch only under multikey rules of their own.
    if (condition.negated || HasDigitsComponent(path.dotted()) ||
        HasDigitsComponent(condition.path)) {
      continue;
    }
    nested_paths_.push_back(path.dotted() + "." + std::string(condition.path));
    condition.path = nested_paths_.back();
    if (condition.elem_match == nullptr) {
      condition.elem_match = this;
      condition.elem_match_path = nested_paths_.front();
    } else {
      nested_paths_.push_back(path.dotted() + "." + std::string(condition.elem_match_path));
      condition.elem_match_path = nested_paths_.back();
    }
    nested_.push_back(std::move(condition));
  }
}

std::optional<PathCondition> ElemMatchValuePredicate::AsBoundingCondition() const {
  PathCondition condition;
  condition.op = CompareOp::kElemMatch;
  for (const MatchNodePtr& element_condition : conditions_) {
    element_condition->AppendBoundingConjuncts(&condition.element_conditions);
  }
  if (condition.element_conditions.empty()) return std::nullopt;
  return condition;
}

bool ElemMatchObjectPredicate::Test(bson::ValueView value, MatchDetails* details) const {
  if (value.type() != bson::Type::kArray) return false;
  std::size_t position = 0;
  for (const bson::Element& element : value.Document()) {
    const bson::Type type = element.value.type();
    // mongod matches an array element as the document of its positions ({"0": ..., "1": ...}):
    // the sub-query's field names are not looked up in its elements.
    const bson::DocumentView fields = element.value.Document();
    if ((type == bson::Type::kDocument || type == bson::Type::kArray) &&
        sub_->Matches(bson::ValueView(bson::Type::kDocument, fields.data(), fields.size()),
                      nullptr)) {
      if (details != nullptr) details->array_index = position;
      return true;
    }
    ++position;
  }
  return false;
}

bool ElemMatchValuePredicate::Test(bson::ValueView value, MatchDetails* details) const {
  if (value.type() != bson::Type::kArray) return false;
  std::size_t position = 0;
  for (const bson::Element& element : value.Document()) {
    bool all = true;
    for (const MatchNodePtr& condition : conditions_) {
      if (!condition->MatchesSingle(element.value, nullptr)) {
        all = false;
        break;
      }
    }
    if (all) {
      if (details != nullptr) details->array_index = position;
      return true;
    }
    ++position;
  }
  return false;
}

}  // namespace quarry::query
