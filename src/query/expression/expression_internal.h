// Shared by the expression operator files (expression_*.cc): the operator table, operand
// parsing, and conversions between operators. Folder-private.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/expression/expression.h"
#include "query/value/location_error.h"
#include "query/value/value.h"

namespace quarry::query::expr_internal {

// Evaluates all operands and then computes the result from their values.
using NaryFn = StatusWith<Value> (*)(std::string_view name, std::vector<Value>& args);
// As NaryFn, for operators that compare strings under the collation in force (null: simple).
using CollatedNaryFn = StatusWith<Value> (*)(std::string_view name, std::vector<Value>& args,
                                             const bson::StringComparator* collator);
// Parses an operator's argument into an expression tree itself.
using OperatorParser = StatusWith<ExpressionPtr> (*)(std::string_view name, bson::ValueView args,
                                                     ParseContext& ctx);

struct OperatorEntry {
  OperatorParser parser = nullptr;       // custom parsing, or
  NaryFn fn = nullptr;                   // operands evaluated in order, then fn
  CollatedNaryFn collated_fn = nullptr;  // or this, with the parse context's collator
  int min_args = 0;
  int max_args = -1;  // -1: no upper bound
};

class OperatorTable {
 public:
  void Add(std::string_view name, OperatorParser parser);
  void AddNary(std::string_view name, int min_args, int max_args, NaryFn fn);
  void AddCollatedNary(std::string_view name, int min_args, int max_args, CollatedNaryFn fn);
  const OperatorEntry* Find(std::string_view name) const;

 private:
  std::map<std::string, OperatorEntry, std::less<>> entries_;
};

// One call per file adds its operators (no static initialisers).
void AddArithmeticOperators(OperatorTable* table);
void AddComparisonOperators(OperatorTable* table);  // also boolean and conditional
void AddStringOperators(OperatorTable* table);
void AddArrayOperators(OperatorTable* table);
void AddTypeOperators(OperatorTable* table);
void AddDateOperators(OperatorTable* table);
void AddObjectOperators(OperatorTable* table);
void AddAccumulatorOperators(OperatorTable* table);  // $sum/$avg/$min/$max over arrays
void AddSetOperators(OperatorTable* table);
void AddLoopOperators(OperatorTable* table);   // $filter $map $reduce
void AddRegexOperators(OperatorTable* table);  // $regexMatch $replaceOne $replaceAll
void AddConvertOperators(OperatorTable* table);
void AddCoreOperators(OperatorTable* table);  // $let $literal $rand $meta

// mongod's rules for variable names that user code defines ($let, `let`, $map's `as`):
// 16866 empty, 16867 bad first character, 16868 bad character.
Status ValidateVariableNameForWrite(std::string_view name);

// Parses the date strings $toDate/$convert accept ("2021-02-03", "2021-02-03T04:05:06.789Z",
// with an optional "+05:30" offset); false for others.
bool ParseDateString(std::string_view s, std::int64_t* out);

// An operator's operands: the elements of an array argument, or the argument itself.
StatusWith<std::vector<ExpressionPtr>> ParseOperands(bson::ValueView args, ParseContext& ctx);
// mongod's arity errors (16020): "Expression $x takes exactly 2 arguments. 1 were passed in."
Status CheckArity(std::string_view name, std::size_t count, int min_args, int max_args);

// An expression that evaluates its operands and applies `fn` (what AddNary registers).
class NaryExpression final : public Expression {
 public:
  NaryExpression(std::string name, std::vector<ExpressionPtr> operands, NaryFn fn)
      : name_(std::move(name)), operands_(std::move(operands)), fn_(fn) {}
  NaryExpression(std::string name, std::vector<ExpressionPtr> operands, CollatedNaryFn fn,
                 std::shared_ptr<const bson::StringComparator> collator)
      : name_(std::move(name)),
        operands_(std::move(operands)),
        collated_fn_(fn),
        collator_(std::move(collator)) {}
  StatusWith<Value> Evaluate(EvalContext& ctx) const override;
  bool IsConstant() const override;

 private:
  std::string name_;
  std::vector<ExpressionPtr> operands_;
  NaryFn fn_ = nullptr;
  CollatedNaryFn collated_fn_ = nullptr;
  std::shared_ptr<const bson::StringComparator> collator_;
};

// Named arguments ({input: ..., as: ...}) of operators such as $filter and $dateToString.
struct NamedArgs {
  std::map<std::string, bson::ValueView, std::less<>> values;
  bool Has(std::string_view key) const { return values.count(key) != 0; }
  bson::ValueView Get(std::string_view key) const {
    auto it = values.find(key);
    return it == values.end() ? bson::ValueView() : it->second;
  }
};
// Splits `args` (which must be a document, else `not_object_code`) into known names. Unknown
// names fail with `unknown_code` "Unrecognized parameter to <op>: <name>"; missing required
// names with `missing_code` "Missing '<name>' parameter to <op>".
StatusWith<NamedArgs> ParseNamedArgs(std::string_view op, bson::ValueView args,
                                     const std::vector<std::string_view>& allowed,
                                     const std::vector<std::string_view>& required,
                                     int not_object_code, int unknown_code, int missing_code);

// A parsed sub-expression, or nullptr when `spec` is absent.
StatusWith<ExpressionPtr> ParseOptional(bson::ValueView spec, ParseContext& ctx);

// Evaluates an optional expression: missing when `expr` is null.
StatusWith<Value> EvaluateOptional(const ExpressionPtr& expr, EvalContext& ctx);

// Conversion helpers shared across operator files.
// Milliseconds since the epoch of a date, timestamp or ObjectId; false for other types.
bool ToDateMillis(bson::ValueView v, std::int64_t* out);

// The string a value converts to where an expression wants one ($concat-like coercion of
// $substr, $toLower, $strcasecmp): numbers, dates, timestamps and strings; null and missing
// give "". Other types fail with 16007 "can't convert from BSON type object to String".
StatusWith<std::string> CoerceToString(bson::ValueView v);
// The shortest text that reads back as `d` ("1.5", "1", "1e+21", "NaN", "Infinity").
std::string FormatDouble(double d);

// A UTC calendar time.
struct CivilTime {
  std::int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int millisecond = 0;
  int day_of_week = 5;  // 1 (Sunday) .. 7 (Saturday)
  int day_of_year = 1;  // 1..366
};
CivilTime ToCivil(std::int64_t millis);
// Milliseconds since the epoch of a UTC calendar time (fields may overflow their ranges).
std::int64_t FromCivil(std::int64_t year, std::int64_t month, std::int64_t day, std::int64_t hour,
                       std::int64_t minute, std::int64_t second, std::int64_t millisecond);
// "2024-01-31T12:00:00.000Z"
std::string FormatIsoDate(std::int64_t millis);

}  // namespace quarry::query::expr_internal
