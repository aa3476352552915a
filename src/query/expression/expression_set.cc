// Set expressions over arrays: $setUnion $setIntersection $setDifference $setEquals
// $setIsSubset (elements compared as $eq does, duplicates ignored).
#include "bson/compare.h"
#include "query/expression/expression_internal.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

std::vector<Value> Elements(const Value& array) {
  std::vector<Value> out;
  for (const bson::Element& e : array.view().Document()) out.push_back(array.Child(e.value));
  return out;
}

// ---- set operators ----

void AddUnique(std::vector<Value>* set, const Value& v, const bson::StringComparator* collator) {
  for (const Value& existing : *set) {
    if (bson::ValuesEqual(existing.view(), v.view(), collator)) return;
  }
  set->push_back(v);
}

bool Contains(const std::vector<Value>& set, const Value& v,
              const bson::StringComparator* collator) {
  for (const Value& existing : set) {
    if (bson::ValuesEqual(existing.view(), v.view(), collator)) return true;
  }
  return false;
}

Status NotArray(std::string_view name, int code, const Value& v) {
  return LocationError(code, "All operands of " + std::string(name) +
                                 " must be arrays. One argument is " +
                                 "of type: " + std::string(TypeName(v)));
}

StatusWith<Value> SetUnion(std::string_view name, std::vector<Value>& args,
                           const bson::StringComparator* collator) {
  std::vector<Value> set;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.IsArray()) return NotArray(name, 17043, v);
    for (const Value& e : Elements(v)) AddUnique(&set, e, collator);
  }
  return MakeArray(set);
}

StatusWith<Value> SetIntersection(std::string_view name, std::vector<Value>& args,
                                  const bson::StringComparator* collator) {
  std::vector<Value> set;
  bool first = true;
  for (const Value& v : args) {
    if (v.nullish()) return Value::Null();
    if (!v.IsArray()) return NotArray(name, 17047, v);
    std::vector<Value> elements = Elements(v);
    if (first) {
      for (const Value& e : elements) AddUnique(&set, e, collator);
      first = false;
      continue;
    }
    std::vector<Value> kept;
    for (const Value& e : set) {
      if (Contains(elements, e, collator)) kept.push_back(e);
    }
    set = std::move(kept);
  }
  return MakeArray(set);
}

StatusWith<Value> SetDifference(std::string_view, std::vector<Value>& args,
                                const bson::StringComparator* collator) {
  if (args[0].nullish() || args[1].nullish()) return Value::Null();
  if (!args[0].IsArray() || !args[1].IsArray()) {
    const Value& bad = args[0].IsArray() ? args[1] : args[0];
    return LocationError(17048, "both operands of $setDifference must be arrays. " +
                                    std::string(args[0].IsArray() ? "Second" : "First") +
                                    " argument is of type: " + std::string(TypeName(bad)));
  }
  std::vector<Value> other = Elements(args[1]);
  std::vector<Value> set;
  for (const Value& e : Elements(args[0])) {
    if (!Contains(other, e, collator)) AddUnique(&set, e, collator);
  }
  return MakeArray(set);
}

StatusWith<Value> SetEquals(std::string_view name, std::vector<Value>& args,
                            const bson::StringComparator* collator) {
  std::vector<Value> reference;
  for (std::size_t arg_idx = 0; arg_idx < args.size(); ++arg_idx) {
    if (!args[arg_idx].IsArray()) {
      return LocationError(17044, "All operands of " + std::string(name) +
                                      " must be arrays. One argument is of type: " +
                                      std::string(TypeName(args[arg_idx])));
    }
    std::vector<Value> set;
    for (const Value& e : Elements(args[arg_idx])) AddUnique(&set, e, collator);
    if (arg_idx == 0) {
      reference = std::move(set);
      continue;
    }
    if (set.size() != reference.size()) return Value::Bool(false);
    for (const Value& e : set) {
      if (!Contains(reference, e, collator)) return Value::Bool(false);
    }
  }
  return Value::Bool(true);
}

StatusWith<Value> SetIsSubset(std::string_view, std::vector<Value>& args,
                              const bson::StringComparator* collator) {
  if (!args[0].IsArray()) {
    return LocationError(17046,
                         "both operands of $setIsSubset must be arrays. First argument is "
                         "of type: " +
                             std::string(TypeName(args[0])));
  }
  if (!args[1].IsArray()) {
    return LocationError(17042,
                         "both operands of $setIsSubset must be arrays. Second argument "
                         "is of type: " +
                             std::string(TypeName(args[1])));
  }
  std::vector<Value> superset = Elements(args[1]);
  for (const Value& e : Elements(args[0])) {
    if (!Contains(superset, e, collator)) return Value::Bool(false);
  }
  return Value::Bool(true);
}

}  // namespace

void AddSetOperators(OperatorTable* table) {
  table->AddCollatedNary("$setUnion", 0, -1, SetUnion);
  table->AddCollatedNary("$setIntersection", 0, -1, SetIntersection);
  table->AddCollatedNary("$setDifference", 2, 2, SetDifference);
  table->AddCollatedNary("$setEquals", 2, -1, SetEquals);
  table->AddCollatedNary("$setIsSubset", 2, 2, SetIsSubset);
}

}  // namespace quarry::query::expr_internal
