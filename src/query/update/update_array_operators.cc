// Array operators: $push (with $each $position $sort $slice), $addToSet, $pop, $pull, $pullAll.
#include <algorithm>

#include "bson/compare.h"
#include "query/update/update_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::update_internal {
namespace {

using bson::Type;

std::vector<Value> CurrentElements(MutableValue* array) {
  std::vector<Value> values;
  for (const MutableValue& element : array->elements()) values.push_back(element.ToValue());
  return values;
}

MutableValue ArrayOf(const std::vector<Value>& values) {
  MutableValue array = MutableValue::NewArray();
  for (const Value& v : values) array.elements().emplace_back(v);
  return array;
}

void SortElements(const LeafOp& op, std::vector<Value>* values) {
  if (op.sort_whole_direction != 0) {
    const int direction = op.sort_whole_direction;
    const bson::StringComparator* collator = op.collator.get();
    std::stable_sort(values->begin(), values->end(), [&](const Value& a, const Value& b) {
      return bson::CompareValues(a.view(), b.view(), collator) * direction < 0;
    });
    return;
  }
  static const bson::Document kEmpty;
  auto doc_of = [](const Value& v) { return v.IsDocument() ? v.view().Document() : kEmpty.view(); };
  std::vector<std::pair<SortKey, std::size_t>> keys;
  for (std::size_t value_idx = 0; value_idx < values->size(); ++value_idx) {
    keys.emplace_back(op.sort_spec.MakeKey(doc_of((*values)[value_idx])), value_idx);
  }
  std::stable_sort(keys.begin(), keys.end(), [&op](const auto& a, const auto& b) {
    return op.sort_spec.CompareKeys(a.first, b.first) < 0;
  });
  std::vector<Value> sorted;
  for (const auto& key : keys) sorted.push_back((*values)[key.second]);
  *values = std::move(sorted);
}

Status ApplyPush(const LeafOp& op, Location& loc, ApplyState& state) {
  std::vector<Value> values;
  if (loc.target != nullptr) {
    if (!loc.target->IsArray()) {
      return Status(ErrorCode::kBadValue, "The field '" + loc.missing.back() +
                                              "' must be an array but is of type " +
                                              std::string(TypeName(loc.target->ToValue())) +
                                              " in document " + IdDescription(state));
    }
    values = CurrentElements(loc.target);
  }
  std::size_t position = values.size();
  if (op.position.has_value()) {
    std::int64_t p = *op.position;
    const auto size = static_cast<std::int64_t>(values.size());
    if (p < 0) p = std::max<std::int64_t>(0, size + p);
    position = static_cast<std::size_t>(std::min(p, size));
  }
  values.insert(values.begin() + static_cast<std::ptrdiff_t>(position), op.each.begin(),
                op.each.end());
  if (op.has_sort) SortElements(op, &values);
  if (op.slice.has_value()) {
    const std::int64_t n = *op.slice;
    const auto size = static_cast<std::int64_t>(values.size());
    if (n >= 0 && n < size) {
      values.resize(static_cast<std::size_t>(n));
    } else if (n < 0 && -n < size) {
      values.erase(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(size + n));
    }
  }
  if (loc.target != nullptr) {
    *loc.target = ArrayOf(values);
    return Status::OK();
  }
  return CreateAt(loc, ArrayOf(values), state);
}

bool ContainsEqual(const std::vector<Value>& values, const Value& v,
                   const bson::StringComparator* collator) {
  for (const Value& existing : values) {
    if (bson::ValuesEqual(existing.view(), v.view(), collator)) return true;
  }
  return false;
}

Status ApplyAddToSet(const LeafOp& op, Location& loc, ApplyState& state) {
  std::vector<Value> values;
  if (loc.target != nullptr) {
    if (!loc.target->IsArray()) {
      return Status(ErrorCode::kBadValue,
                    "Cannot apply $addToSet to non-array field. Field named '" +
                        loc.missing.back() + "' has non-array type " +
                        std::string(TypeName(loc.target->ToValue())));
    }
    values = CurrentElements(loc.target);
  }
  const std::size_t before = values.size();
  for (const Value& v : op.each) {
    if (!ContainsEqual(values, v, op.collator.get())) values.push_back(v);
  }
  if (loc.target != nullptr) {
    if (values.size() != before) *loc.target = ArrayOf(values);
    return Status::OK();
  }
  return CreateAt(loc, ArrayOf(values), state);
}

Status ApplyPop(const LeafOp& op, Location& loc) {
  if (loc.target == nullptr) return Status::OK();
  if (!loc.target->IsArray()) {
    return Status(ErrorCode::kTypeMismatch, "Path '" + loc.path +
                                                "' contains an element of non-array type '" +
                                                std::string(TypeName(loc.target->ToValue())) + "'");
  }
  std::vector<MutableValue>& elements = loc.target->elements();
  if (elements.empty()) return Status::OK();
  if (op.arg.view().AsInt64() > 0) {
    elements.pop_back();
  } else {
    elements.erase(elements.begin());
  }
  return Status::OK();
}

bool PullMatches(const LeafOp& op, const Value& element) {
  switch (op.pull_mode) {
    case LeafOp::PullMode::kEquality:
      return bson::ValuesEqual(element.view(), op.arg.view(), op.collator.get());
    case LeafOp::PullMode::kValueCondition:
      return op.pull_matcher->MatchesValue(element.view());
    case LeafOp::PullMode::kDocumentFilter:
      return element.IsDocument() && op.pull_matcher->Matches(element.view().Document());
  }
  return false;
}

Status ApplyPull(const LeafOp& op, Location& loc) {
  if (loc.target == nullptr) return Status::OK();
  if (!loc.target->IsArray()) {
    return Status(ErrorCode::kBadValue, "Cannot apply " + op.op_name + " to a non-array value");
  }
  std::vector<Value> values = CurrentElements(loc.target);
  std::vector<Value> kept;
  for (const Value& v : values) {
    bool remove = false;
    if (op.kind == OpKind::kPull) {
      remove = PullMatches(op, v);
    } else {
      for (const bson::Element& e : op.arg.view().Document()) {
        if (bson::ValuesEqual(e.value, v.view(), op.collator.get())) {
          remove = true;
          break;
        }
      }
    }
    if (!remove) kept.push_back(v);
  }
  if (kept.size() != values.size()) *loc.target = ArrayOf(kept);
  return Status::OK();
}

}  // namespace

Status ApplyArrayLeaf(const LeafOp& op, Location& loc, ApplyState& state) {
  switch (op.kind) {
    case OpKind::kPush:
      return ApplyPush(op, loc, state);
    case OpKind::kAddToSet:
      return ApplyAddToSet(op, loc, state);
    case OpKind::kPop:
      return ApplyPop(op, loc);
    case OpKind::kPull:
    case OpKind::kPullAll:
      return ApplyPull(op, loc);
    default:
      return Status::OK();
  }
}

}  // namespace quarry::query::update_internal
