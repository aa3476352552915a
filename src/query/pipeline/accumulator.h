// $group's accumulators ({total: {$sum: "$amount"}}): each is fed one value per document of
// its group and produces the group's result.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "query/expression/expression.h"
#include "query/value/value.h"

namespace quarry::query {

class Accumulator {
 public:
  virtual ~Accumulator() = default;
  // Adds one document's value (missing when the expression produced nothing). Fails only
  // where mongod does ($mergeObjects on a non-object, 40400).
  virtual Status Process(const Value& value) = 0;
  // The result for the group so far.
  virtual Value Finish() const = 0;
  // Approximate bytes held, for $group's memory limit.
  virtual std::size_t memory_bytes() const { return 16; }

  // A $group that spills writes each group's partial state to disk and combines the partial
  // states of one group from every run at the end. An accumulator that cannot say false here,
  // and such a $group fails rather than spill.
  virtual bool mergeable() const { return false; }
  // The state so far as one value, never missing. REQUIRES: mergeable().
  virtual Value PartialState() const { return Value::Null(); }
  // Folds in a PartialState() of an accumulator of the same kind that saw the documents after
  // the ones this one saw, so that Finish() answers as one accumulator that saw them all.
  // REQUIRES: mergeable().
  virtual Status MergePartialState(const Value& partial);
};

// One output field of $group: its name, the accumulator operator and the operand expression.
class AccumulationStatement {
 public:
  // Parses `{$sum: <expr>}` for output field `field`. Errors as mongod: 40234 "The field 'f'
  // must be an accumulator object", 40238 "The field 'f' must specify one accumulator", 15952
  // "unknown group operator '$foo'", 40237 for array arguments of unary accumulators.
  static StatusWith<AccumulationStatement> Parse(std::string_view field, bson::ValueView spec,
                                                 ParseContext& ctx);

  const std::string& field() const { return field_; }
  const std::string& op() const { return op_; }
  const Expression& expression() const { return *expr_; }
  // A fresh accumulator for a new group.
  std::unique_ptr<Accumulator> Create() const;

 private:
  std::string field_;
  std::string op_;
  ExpressionPtr expr_;
  std::shared_ptr<const bson::StringComparator> collator_;  // $min, $max, $addToSet
};

// A fresh accumulator for `op` ("$sum", "$push", ...), or null when $group knows no such
// accumulator. The expression forms of $sum, $avg, $min, $max and $stdDev* fold their operands
// with these too. $min, $max and $addToSet compare strings under `collator` (null: simple),
// which must outlive the accumulator.
std::unique_ptr<Accumulator> MakeAccumulator(std::string_view op,
                                             const bson::StringComparator* collator = nullptr);

// True if `op` ("$sum", ...) names an accumulator $group knows.
bool IsAccumulatorName(std::string_view op);

}  // namespace quarry::query
