// Modifier updates that only touch top-level fields: applied in one pass over the document's
// elements, copying each unchanged element as it is, instead of expanding the document into a
// value tree and writing the tree out again. The general path gives the same document; this one
// declines whatever it cannot do the same way (an $inc of a non-number, an overflow) so that
// the general path answers, with its error.
#include "query/update/update_internal.h"
#include "query/value/value_arithmetic.h"

namespace quarry::query::update_internal {
namespace {

// Past this many fields, the linear search per element would cost more than the tree.
constexpr std::size_t kMaxTopLevelOps = 16;

bool IsTopLevelOp(OpKind kind) {
  return kind == OpKind::kSet || kind == OpKind::kUnset || kind == OpKind::kInc ||
         kind == OpKind::kMul;
}

// What `op` writes for an existing `current` value; missing when the general path must decide.
Value Changed(const LeafOp& op, bson::ValueView current) {
  switch (op.kind) {
    case OpKind::kSet:
      return Value::Unowned(op.arg.view());
    case OpKind::kInc:
    case OpKind::kMul:
      if (!current.IsNumber()) return Value();
      return Arithmetic(op.kind == OpKind::kInc ? ArithmeticOp::kAdd : ArithmeticOp::kMultiply,
                        current, op.arg.view(), Int64Overflow::kFail);
    default:
      return Value();
  }
}

// What `op` creates when its field is absent (missing for $unset).
Value Created(const LeafOp& op) {
  switch (op.kind) {
    case OpKind::kSet:
    case OpKind::kInc:
      return Value::Unowned(op.arg.view());
    case OpKind::kMul:
      return ZeroOfType(op.arg.type());
    default:
      return Value();
  }
}

}  // namespace

std::optional<TopLevelUpdate> PlanTopLevelUpdate(const ModifierUpdate& update) {
  const UpdateNode& root = update.root;
  if (root.positional != nullptr || root.array_children || !update.array_filters.empty() ||
      !update.renames.empty() || root.children.size() > kMaxTopLevelOps) {
    return std::nullopt;
  }
  TopLevelUpdate plan;
  for (const auto& [name, child] : root.children) {
    // _id stays on the general path, which owns the immutability checks.
    if (name == "_id" || child->leaf == nullptr || !IsTopLevelOp(child->leaf->kind)) {
      return std::nullopt;
    }
    const bson::Type type = child->leaf->arg.type();
    plan.sets_nested |= type == bson::Type::kDocument || type == bson::Type::kArray;
    plan.ops.push_back(child->leaf.get());
  }
  return plan;
}

std::optional<bson::Document> ApplyTopLevelUpdate(const TopLevelUpdate& plan,
                                                  bson::DocumentView doc) {
  // Ops applied so far, by position in plan.ops: a document may repeat a name, and as on the
  // general path only its first field changes.
  std::uint32_t applied = 0;
  static_assert(kMaxTopLevelOps <= 32);
  bson::DocumentBuilder builder(doc.size() + 64);
  for (const bson::Element& e : doc) {
    std::size_t op_idx = 0;
    while (op_idx < plan.ops.size() &&
           ((applied >> op_idx & 1) != 0 || plan.ops[op_idx]->path != e.key)) {
      ++op_idx;
    }
    if (op_idx == plan.ops.size()) {
      builder.Append(e.key, e.value);
      continue;
    }
    applied |= 1u << op_idx;
    const LeafOp& op = *plan.ops[op_idx];
    if (op.kind == OpKind::kUnset) continue;
    Value changed = Changed(op, e.value);
    if (changed.missing()) return std::nullopt;
    builder.Append(e.key, changed.view());
  }
  // New fields follow the existing ones, in the tree's (path) order.
  for (std::size_t op_idx = 0; op_idx < plan.ops.size(); ++op_idx) {
    if ((applied >> op_idx & 1) != 0) continue;
    Value created = Created(*plan.ops[op_idx]);
    if (!created.missing()) builder.Append(plan.ops[op_idx]->path, created.view());
  }
  return std::move(builder).Finish();
}

}  // namespace quarry::query::update_internal
