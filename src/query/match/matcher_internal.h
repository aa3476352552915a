// The parsed filter tree behind Matcher: logical nodes, path nodes and the leaf predicates
// they apply. Folder-private.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bson/string_comparator.h"
#include "bson/value.h"
#include "query/match/field_path.h"
#include "query/match/matcher.h"
#include "query/value/regex.h"

namespace quarry::text {
struct TextSearch;  // text/search.h
}  // namespace quarry::text

namespace quarry::query {

class ParseContext;  // query/expression/expression.h

// A node of the filter tree.
class MatchNode {
 public:
  virtual ~MatchNode() = default;
  // Whether `root` (the document, or the value for value conditions) satisfies this node.
  virtual bool Matches(bson::ValueView root, MatchDetails* details) const = 0;
  // Whether one value satisfies the node's condition directly, without following a path: what
  // $elemMatch's value form asks of each array element.
  virtual bool MatchesSingle(bson::ValueView value, MatchDetails* details) const = 0;
  // Appends the comparisons every document this node matches satisfies (Matcher::Conjuncts).
  virtual void AppendConjuncts(std::vector<PathCondition>*) const {}
  // Appends the conditions index bounds are built from (Matcher::BoundingConjuncts).
  virtual void AppendBoundingConjuncts(std::vector<PathCondition>* out) const {
    AppendConjuncts(out);
  }
};
using MatchNodePtr = std::unique_ptr<const MatchNode>;

// A condition on one value: what a leaf operator ($gt, $type, $size...) tests.
class Predicate {
 public:
  virtual ~Predicate() = default;
  // `value` may be absent (a missing field).
  virtual bool Test(bson::ValueView value, MatchDetails* details) const = 0;
  // Whether a leaf array is tested element by element as well as whole (false for operators
  // about arrays themselves: $size, $elemMatch).
  virtual bool ExpandsLeafArrays() const { return true; }
  // The condition this predicate is, for planners (without its path); nullopt for predicates
  // that Matcher::Conjuncts does not report.
  virtual std::optional<PathCondition> AsCondition() const { return std::nullopt; }
  // AsCondition, or a condition only index bounds are built from ($exists, $elemMatch on values).
  virtual std::optional<PathCondition> AsBoundingCondition() const { return AsCondition(); }
  // Bounding conditions on paths below the predicate's own, with their whole paths ($elemMatch
  // on documents).
  virtual void AppendNestedConditions(std::vector<PathCondition>*) const {}
};
using PredicatePtr = std::unique_ptr<const Predicate>;

// A predicate applied to the values a path reaches: true if any of them satisfies it.
class PathNode final : public MatchNode {
 public:
  PathNode(FieldPath path, PredicatePtr predicate)
      : path_(std::move(path)), predicate_(std::move(predicate)) {}
  bool Matches(bson::ValueView root, MatchDetails* details) const override;
  bool MatchesSingle(bson::ValueView value, MatchDetails* details) const override {
    return predicate_->Test(value, details);
  }
  void AppendConjuncts(std::vector<PathCondition>* out) const override {
    if (std::optional<PathCondition> condition = predicate_->AsCondition()) {
      condition->path = path_.dotted();
      out->push_back(*condition);
    }
  }
  void AppendBoundingConjuncts(std::vector<PathCondition>* out) const override {
    if (std::optional<PathCondition> condition = predicate_->AsBoundingCondition()) {
      condition->path = path_.dotted();
      out->push_back(std::move(*condition));
    }
    predicate_->AppendNestedConditions(out);
  }
  // The condition a NOT of this node is, for bounds: nullopt where no interval can be inverted
  // (a regex, $elemMatch, $type, $mod...).
  std::optional<PathCondition> NegatedCondition() const {
    std::optional<PathCondition> condition = predicate_->AsBoundingCondition();
    if (!condition.has_value() || condition->op == CompareOp::kRegex ||
        condition->op == CompareOp::kElemMatch) {
      return std::nullopt;
    }
    condition->path = path_.dotted();
    condition->negated = true;
    return condition;
  }

 private:
  FieldPath path_;
  PredicatePtr predicate_;
};

class AndNode final : public MatchNode {
 public:
  explicit AndNode(std::vector<MatchNodePtr> children) : children_(std::move(children)) {}
  bool Matches(bson::ValueView root, MatchDetails* details) const override;
  bool MatchesSingle(bson::ValueView value, MatchDetails* details) const override;
  void AppendConjuncts(std::vector<PathCondition>* out) const override {
    for (const MatchNodePtr& child : children_) child->AppendConjuncts(out);
  }
  void AppendBoundingConjuncts(std::vector<PathCondition>* out) const override {
    for (const MatchNodePtr& child : children_) child->AppendBoundingConjuncts(out);
  }

 private:
  std::vector<MatchNodePtr> children_;
};

class OrNode final : public MatchNode {
 public:
  explicit OrNode(std::vector<MatchNodePtr> children) : children_(std::move(children)) {}
  bool Matches(bson::ValueView root, MatchDetails* details) const override;
  bool MatchesSingle(bson::ValueView value, MatchDetails* details) const override;

 private:
  std::vector<MatchNodePtr> children_;
};

class NotNode final : public MatchNode {
 public:
  explicit NotNode(MatchNodePtr child) : child_(std::move(child)) {}
  bool Matches(bson::ValueView root, MatchDetails*) const override {
    return !child_->Matches(root, nullptr);
  }
  bool MatchesSingle(bson::ValueView value, MatchDetails*) const override {
    return !child_->MatchesSingle(value, nullptr);
  }
  // Only the NOT of one condition on one path bounds a scan ({$not: {$gt: 5, $lt: 9}} does not).
  void AppendBoundingConjuncts(std::vector<PathCondition>* out) const override {
    if (const auto* path = dynamic_cast<const PathNode*>(child_.get())) {
      if (std::optional<PathCondition> negated = path->NegatedCondition()) {
        out->push_back(std::move(*negated));
      }
    }
  }

 private:
  MatchNodePtr child_;
};

class ConstantNode final : public MatchNode {
 public:
  explicit ConstantNode(bool result) : result_(result) {}
  bool Matches(bson::ValueView, MatchDetails*) const override { return result_; }
  bool MatchesSingle(bson::ValueView, MatchDetails*) const override { return result_; }

 private:
  bool result_;
};

// $text: only a text index answers it (the planner reads the index and matches the rest of the
// filter without it), so a document that reaches the node fails the query.
class TextNode final : public MatchNode {
 public:
  bool Matches(bson::ValueView, MatchDetails*) const override;
  bool MatchesSingle(bson::ValueView, MatchDetails*) const override { return false; }
};

// --- Leaf predicates (matcher_predicates.cc) ---

// $eq, $lt, $lte, $gt, $gte, and plain values: comparison within a canonical type bracket.
class ComparisonPredicate final : public Predicate {
 public:
  // `collator` (null: simple) must outlive the predicate; the Matcher keeps it.
  ComparisonPredicate(CompareOp op, bson::ValueView rhs,
                      const bson::StringComparator* collator = nullptr)
      : op_(op), rhs_(rhs), collator_(collator) {}
  bool Test(bson::ValueView value, MatchDetails* details) const override;
  std::optional<PathCondition> AsCondition() const override {
    PathCondition condition;
    condition.op = op_;
    condition.value = rhs_;
    return condition;
  }

 private:
  CompareOp op_;
  bson::ValueView rhs_;
  const bson::StringComparator* collator_;
};

// $in: equality to any listed value, or a match of any listed regex.
class InPredicate final : public Predicate {
 public:
  // `operand` is the $in array itself.
  InPredicate(bson::ValueView operand, std::vector<bson::ValueView> equalities,
              std::vector<Regex> regexes, const bson::StringComparator* collator = nullptr);
  bool Test(bson::ValueView value, MatchDetails* details) const override;
  // Reported without regexes only: planners read the array as a list of equalities.
  std::optional<PathCondition> AsCondition() const override {
    if (!regexes_.empty()) return std::nullopt;
    PathCondition condition;
    condition.op = CompareOp::kIn;
    condition.value = operand_;
    return condition;
  }

 private:
  bson::ValueView operand_;
  std::vector<bson::ValueView> equalities_;  // sorted by bson::CompareValues under collator_
  std::vector<Regex> regexes_;
  const bson::StringComparator* collator_;
  bool has_null_ = false;
};

class ExistsPredicate final : public Predicate {
 public:
  bool Test(bson::ValueView value, MatchDetails*) const override { return value.exists(); }
  std::optional<PathCondition> AsBoundingCondition() const override {
    PathCondition condition;
    condition.op = CompareOp::kExists;
    return condition;
  }
};

class TypePredicate final : public Predicate {
 public:
  TypePredicate(std::vector<bson::Type> types, bool any_number)
      : types_(std::move(types)), any_number_(any_number) {}
  bool Test(bson::ValueView value, MatchDetails* details) const override;

 private:
  std::vector<bson::Type> types_;
  bool any_number_;
};

class RegexPredicate final : public Predicate {
 public:
  explicit RegexPredicate(Regex regex) : regex_(std::move(regex)) {}
  bool Test(bson::ValueView value, MatchDetails* details) const override;
  std::optional<PathCondition> AsCondition() const override {
    PathCondition condition;
    condition.op = CompareOp::kRegex;
    condition.regex_pattern = regex_.pattern();
    condition.regex_options = regex_.options();
    return condition;
  }

 private:
  Regex regex_;
};

class ModPredicate final : public Predicate {
 public:
  ModPredicate(std::int64_t divisor, std::int64_t remainder)
      : divisor_(divisor), remainder_(remainder) {}
  bool Test(bson::ValueView value, MatchDetails* details) const override;

 private:
  std::int64_t divisor_;
  std::int64_t remainder_;
};

class SizePredicate final : public Predicate {
 public:
  explicit SizePredicate(std::int64_t size) : size_(size) {}
  bool Test(bson::ValueView value, MatchDetails* details) const override;
  bool ExpandsLeafArrays() const override { return false; }

 private:
  std::int64_t size_;
};

enum class BitsOp { kAllSet, kAnySet, kAllClear, kAnyClear };

class BitsPredicate final : public Predicate {
 public:
  BitsPredicate(BitsOp op, std::vector<std::uint32_t> positions)
      : op_(op), positions_(std::move(positions)) {}
  bool Test(bson::ValueView value, MatchDetails* details) const override;

 private:
  BitsOp op_;
  std::vector<std::uint32_t> positions_;
};

// $elemMatch with a query on the elements ({$elemMatch: {b: 1, c: {$gt: 2}}}).
class ElemMatchObjectPredicate final : public Predicate {
 public:
  // `path` is the array's: the sub-query's conditions are reported below it.
  ElemMatchObjectPredicate(const FieldPath& path, MatchNodePtr sub);
  bool Test(bson::ValueView value, MatchDetails* details) const override;
  bool ExpandsLeafArrays() const override { return false; }
  void AppendNestedConditions(std::vector<PathCondition>* out) const override {
    out->insert(out->end(), nested_.begin(), nested_.end());
  }

 private:
  MatchNodePtr sub_;
  std::deque<std::string> nested_paths_;  // stable: nested_ views them
  std::vector<PathCondition> nested_;
};

// $elemMatch with conditions on the elements themselves ({$elemMatch: {$gt: 1, $lt: 5}}).
class ElemMatchValuePredicate final : public Predicate {
 public:
  explicit ElemMatchValuePredicate(std::vector<MatchNodePtr> conditions)
      : conditions_(std::move(conditions)) {}
  bool Test(bson::ValueView value, MatchDetails* details) const override;
  bool ExpandsLeafArrays() const override { return false; }
  std::optional<PathCondition> AsBoundingCondition() const override;

 private:
  std::vector<MatchNodePtr> conditions_;
};

// --- Operands (matcher_operands.cc) ---

// $mod's divisor or remainder (`what`), truncated to an integer; fails for non-numbers, NaN,
// infinities and values beyond int64.
StatusWith<std::int64_t> ParseModArgument(bson::ValueView value, std::string_view what);
// Adds one $type operand (a type number, an alias, or "number") to `types` / `any_number`.
Status AddTypeSpec(bson::ValueView spec, std::vector<bson::Type>* types, bool* any_number);
// The bit positions a $bits* operand names: an array of positions, a number mask, or BinData.
StatusWith<std::vector<std::uint32_t>> ParseBitPositions(std::string_view name,
                                                         bson::ValueView arg);

// --- Parsing (matcher_parse.cc) ---

// Parses a whole filter document into one node. `expression_context`, if given, holds the
// variables $expr may use (a command's `let`) and the collation its comparisons use.
// Comparisons of strings use `collator` (null: simple), which must outlive the node. A $text
// condition (at most one, at the top or under $and only) is stored in `*text` when given.
StatusWith<MatchNodePtr> ParseFilterNode(bson::DocumentView filter,
                                         const ParseContext* expression_context = nullptr,
                                         const bson::StringComparator* collator = nullptr,
                                         std::shared_ptr<const text::TextSearch>* text = nullptr);
// Parses the condition on one value (5, /re/, {$gt: 1}) applied to the value itself.
StatusWith<MatchNodePtr> ParseValueConditionNode(bson::ValueView condition,
                                                 const bson::StringComparator* collator = nullptr);

// $jsonSchema (matcher_json_schema.cc). The schema's bytes must outlive the node.
StatusWith<MatchNodePtr> ParseJsonSchemaNode(bson::ValueView schema);

// $expr (matcher_expr.cc). `context` may be null.
StatusWith<MatchNodePtr> ParseExprNode(bson::ValueView expression, const ParseContext* context);

}  // namespace quarry::query
