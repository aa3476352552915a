// The expression forms of $sum $avg $min $max $stdDevPop $stdDevSamp ({$sum: "$array"},
// {$max: ["$a", "$b"]}): $group's accumulators folded over the operands, so both forms agree on
// types and rounding.
#include <memory>

#include "query/expression/expression_internal.h"
#include "query/pipeline/accumulator.h"

namespace quarry::query::expr_internal {
namespace {

// One array operand accumulates its elements; several operands accumulate themselves.
StatusWith<Value> AccumulateOperands(std::string_view name, std::vector<Value>& args,
                                     const bson::StringComparator* collator) {
  std::unique_ptr<Accumulator> acc = MakeAccumulator(name, collator);
  if (args.size() == 1 && args[0].IsArray()) {
    for (const bson::Element& e : args[0].view().Document()) {
      QUARRY_RETURN_IF_ERROR(acc->Process(args[0].Child(e.value)));
    }
  } else {
    for (const Value& v : args) QUARRY_RETURN_IF_ERROR(acc->Process(v));
  }
  return acc->Finish();
}

}  // namespace

void AddAccumulatorOperators(OperatorTable* table) {
  table->AddCollatedNary("$sum", 0, -1, AccumulateOperands);
  table->AddCollatedNary("$avg", 0, -1, AccumulateOperands);
  table->AddCollatedNary("$min", 0, -1, AccumulateOperands);
  table->AddCollatedNary("$max", 0, -1, AccumulateOperands);
  table->AddCollatedNary("$stdDevPop", 0, -1, AccumulateOperands);
  table->AddCollatedNary("$stdDevSamp", 0, -1, AccumulateOperands);
}

}  // namespace quarry::query::expr_internal
