// Field operators: $set $unset $inc $mul $min $max $currentDate $setOnInsert $rename.
#include "bson/compare.h"
#include "bson/path.h"
#include "query/update/update_internal.h"
#include "query/value/location_error.h"
#include "query/value/value_arithmetic.h"

namespace quarry::query::update_internal {
namespace {

using bson::Type;

Status SetValue(Location& loc, Value value, ApplyState& state) {
  if (loc.target != nullptr) {
    loc.target->Set(std::move(value));
    return Status::OK();
  }
  return CreateAt(loc, MutableValue(std::move(value)), state);
}

Status ApplyArithmetic(const LeafOp& op, Location& loc, ApplyState& state) {
  if (loc.target == nullptr) {
    if (op.kind == OpKind::kInc) return CreateAt(loc, MutableValue(op.arg), state);
    return CreateAt(loc, MutableValue(ZeroOfType(op.arg.type())), state);
  }
  Value current = loc.target->ToValue();
  if (!current.IsNumber()) {
    return Status(ErrorCode::kTypeMismatch,
                  "Cannot apply " + op.op_name + " to a value of non-numeric type. " +
                      IdDescription(state) + " has the field '" + loc.missing.back() +
                      "' of non-numeric type " + std::string(TypeName(current)));
  }
  Value result = Arithmetic(op.kind == OpKind::kInc ? ArithmeticOp::kAdd : ArithmeticOp::kMultiply,
                            current.view(), op.arg.view(), Int64Overflow::kFail);
  if (result.missing()) {
    return Status(ErrorCode::kBadValue, "Failed to apply " + op.op_name +
                                            " operations to current value ((NumberLong)" +
                                            std::to_string(current.view().AsInt64()) +
                                            ") for document " + IdDescription(state));
  }
  loc.target->Set(result.Owned());
  return Status::OK();
}

// The first array met on the way along `path` in `doc`, for $rename's checks.
bool FindArrayOnPath(bson::DocumentView doc, const std::vector<std::string_view>& parts,
                     std::string* field, std::string* json) {
  bson::ValueView current(Type::kDocument, doc.data(), doc.size());
  for (std::size_t part_idx = 0; part_idx + 1 < parts.size(); ++part_idx) {
    if (current.type() != Type::kDocument) return false;
    current = current.Document().Get(parts[part_idx]);
    if (!current.exists()) return false;
    if (current.type() == Type::kArray) {
      *field = parts[part_idx];
      *json = current.ToJson();
      return true;
    }
  }
  return false;
}

Status ApplyRename(const LeafOp& op, Location& loc, ApplyState& state) {
  const std::vector<std::string_view> from = bson::SplitPath(op.rename_from);
  std::string field;
  std::string json;
  if (FindArrayOnPath(state.original, from, &field, &json)) {
    return Status(ErrorCode::kBadValue, "The source field cannot be an array element, '" +
                                            op.rename_from + "' in doc with " + field + ": " +
                                            json + " has an array field called '" + field + "'");
  }
  bson::ValueView source = state.original.Get(from[0]);
  for (std::size_t part_idx = 1; part_idx < from.size() && source.exists(); ++part_idx) {
    source = source.type() == Type::kDocument ? source.Document().Get(from[part_idx])
                                              : bson::ValueView();
  }
  if (!source.exists()) return Status::OK();
  MutableValue* node = state.root;
  for (std::size_t part_idx = 0; part_idx + 1 < loc.components.size(); ++part_idx) {
    if (!node->IsDocument()) break;
    node = node->Find(loc.components[part_idx]);
    if (node == nullptr) break;
    if (node->IsArray()) {
      return Status(ErrorCode::kBadValue,
                    "The destination field cannot be an array element, '" + op.path +
                        "' in doc with " + loc.components[part_idx] + ": " +
                        node->ToValue().ToJson() + " has an array field called '" +
                        loc.components[part_idx] + "'");
    }
  }
  Resolve(state.root, &loc);
  state.moved_sources.push_back(op.rename_from);
  return SetValue(loc, Value::Copy(source), state);
}

}  // namespace

Status ApplyLeaf(const LeafOp& op, Location& loc, ApplyState& state) {
  switch (op.kind) {
    case OpKind::kSet:
      return SetValue(loc, op.arg, state);
    case OpKind::kSetOnInsert:
      if (!state.is_insert) return Status::OK();
      return SetValue(loc, op.arg, state);
    case OpKind::kUnset:
      if (loc.target == nullptr) return Status::OK();
      if (loc.parent->IsArray()) {
        loc.target->Set(Value::Null());  // array elements are nulled, not removed
      } else if (loc.parent->IsDocument()) {
        loc.parent->Remove(loc.missing.back());
      }
      return Status::OK();
    case OpKind::kInc:
    case OpKind::kMul:
      return ApplyArithmetic(op, loc, state);
    case OpKind::kMin:
    case OpKind::kMax: {
      if (loc.target == nullptr) return CreateAt(loc, MutableValue(op.arg), state);
      Value current = loc.target->ToValue();
      int c = bson::CompareValues(op.arg.view(), current.view(), op.collator.get());
      if ((op.kind == OpKind::kMin && c < 0) || (op.kind == OpKind::kMax && c > 0)) {
        loc.target->Set(op.arg);
      }
      return Status::OK();
    }
    case OpKind::kCurrentDate: {
      Value now =
          op.timestamp ? Value::Timestamp(state.now_timestamp) : Value::Date(state.now_millis);
      return SetValue(loc, now, state);
    }
    case OpKind::kRename:
      return ApplyRename(op, loc, state);
    case OpKind::kRenameSource:
      return Status::OK();
    case OpKind::kPush:
    case OpKind::kAddToSet:
    case OpKind::kPop:
    case OpKind::kPull:
    case OpKind::kPullAll:
      return ApplyArrayLeaf(op, loc, state);
  }
  return Status::OK();
}

}  // namespace quarry::query::update_internal
