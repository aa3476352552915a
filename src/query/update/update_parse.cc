// Parsing modifier updates into the UpdateNode tree: operator arguments, path validation,
// conflicts between paths, and arrayFilters.
#include <cctype>
#include <set>

#include "bson/path.h"
#include "query/update/update_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::update_internal {
namespace {

using bson::Type;

Status BadValue(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }
Status FailedToParse(std::string message) {
  return Status(ErrorCode::kFailedToParse, std::move(message));
}

bool IsAllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool IsArrayFilterComponent(std::string_view part) {
  return part.size() >= 3 && part.substr(0, 2) == "$[" && part.back() == ']';
}

std::string_view ArrayFilterId(std::string_view part) { return part.substr(2, part.size() - 3); }

// Checks a path's components: no empty ones, at most one positional `$`, known arrayFilters
// identifiers, no other $-prefixed names.
Status ValidatePath(std::string_view path, const ModifierUpdate& update,
                    std::set<std::string>* used_filters) {
  if (path.empty()) {
    return Status(ErrorCode::kEmptyFieldName, "An empty update path is not valid.");
  }
  int positional = 0;
  for (const bson::PathComponent& component : bson::PathComponents(path)) {
    const std::string_view part = component.name;
    if (part.empty()) {
      return Status(ErrorCode::kEmptyFieldName,
                    "The update path '" + std::string(path) +
                        "' contains an empty field name, which is not allowed.");
    }
    if (part[0] != '$') continue;
    if (part == "$") {
      ++positional;
      if (positional > 1) {
        return BadValue("Too many positional (i.e. '$') elements found in path '" +
                        std::string(path) + "'");
      }
    } else if (IsArrayFilterComponent(part)) {
      std::string_view id = ArrayFilterId(part);
      if (!id.empty()) {
        if (update.array_filters.find(id) == update.array_filters.end()) {
          return BadValue("No array filter found for identifier '" + std::string(id) +
                          "' in path '" + std::string(path) + "'");
        }
        used_filters->insert(std::string(id));
      }
    } else {
      return Status(ErrorCode::kDollarPrefixedFieldName,
                    "The dollar ($) prefixed field '" + std::string(part) + "' in '" +
                        std::string(path) + "' is not valid for storage.");
    }
    if (component.offset == 0) {
      return BadValue("Cannot have positional (i.e. '$') element in the first position in path '" +
                      std::string(path) + "'");
    }
  }
  return Status::OK();
}

bool IsDynamic(std::string_view path) { return path.find('$') != std::string_view::npos; }

Status Conflict(std::string_view path, std::string_view at) {
  return Status(ErrorCode::kConflictingUpdateOperators, "Updating the path '" + std::string(path) +
                                                            "' would create a conflict at '" +
                                                            std::string(at) + "'");
}

std::string JoinPrefix(const std::vector<std::string_view>& parts, std::size_t count) {
  std::string out;
  for (std::size_t part_idx = 0; part_idx < count; ++part_idx) {
    if (part_idx > 0) out.push_back('.');
    out += parts[part_idx];
  }
  return out;
}

Status Insert(UpdateNode* root, std::unique_ptr<LeafOp> leaf) {
  const std::string path = leaf->path;
  const std::vector<std::string_view> parts = bson::SplitPath(path);
  UpdateNode* node = root;
  for (std::size_t part_idx = 0; part_idx < parts.size(); ++part_idx) {
    const std::string_view part = parts[part_idx];
    if (node->leaf != nullptr) return Conflict(path, JoinPrefix(parts, part_idx));
    std::unique_ptr<UpdateNode>* slot = nullptr;
    if (part == "$") {
      if (node->array_children) return Conflict(path, JoinPrefix(parts, part_idx));
      slot = &node->positional;
    } else if (IsArrayFilterComponent(part)) {
      if (!node->array_children && (!node->children.empty() || node->positional != nullptr)) {
        return Conflict(path, JoinPrefix(parts, part_idx));
      }
      node->array_children = true;
      slot = &node->children[std::string(part)];
    } else {
      if (node->array_children) return Conflict(path, JoinPrefix(parts, part_idx));
      slot = &node->children[std::string(part)];
    }
    if (part_idx + 1 == parts.size()) {
      if (*slot != nullptr) return Conflict(path, path);
      *slot = std::make_unique<UpdateNode>();
      (*slot)->leaf = std::move(leaf);
      return Status::OK();
    }
    if (*slot == nullptr) *slot = std::make_unique<UpdateNode>();
    node = slot->get();
  }
  return Status::OK();
}

bool OpKindOf(std::string_view name, OpKind* kind) {
  static const std::pair<std::string_view, OpKind> kOps[] = {
      {"$set", OpKind::kSet},
      {"$unset", OpKind::kUnset},
      {"$inc", OpKind::kInc},
      {"$mul", OpKind::kMul},
      {"$min", OpKind::kMin},
      {"$max", OpKind::kMax},
      {"$currentDate", OpKind::kCurrentDate},
      {"$setOnInsert", OpKind::kSetOnInsert},
      {"$push", OpKind::kPush},
      {"$addToSet", OpKind::kAddToSet},
      {"$pop", OpKind::kPop},
      {"$pull", OpKind::kPull},
      {"$pullAll", OpKind::kPullAll},
      {"$rename", OpKind::kRename},
  };
  for (const auto& [op_name, op_kind] : kOps) {
    if (op_name == name) {
      *kind = op_kind;
      return true;
    }
  }
  return false;
}

// The top-level identifier of an arrayFilters entry ("i" of {"i.b": 1} or of {$or: [{i: 1}]}).
Status CollectFilterIds(bson::DocumentView filter, std::set<std::string>* ids) {
  for (const bson::Element& e : filter) {
    if (!e.key.empty() && e.key[0] == '$') {
      if ((e.key == "$and" || e.key == "$or" || e.key == "$nor") &&
          e.value.type() == Type::kArray) {
        for (const bson::Element& clause : e.value.Document()) {
          if (clause.value.type() == Type::kDocument) {
            QUARRY_RETURN_IF_ERROR(CollectFilterIds(clause.value.Document(), ids));
          }
        }
      }
      continue;
    }
    ids->insert(std::string(e.key.substr(0, e.key.find('.'))));
  }
  return Status::OK();
}

bool IsValidIdentifier(std::string_view id) {
  if (id.empty() || !(id[0] >= 'a' && id[0] <= 'z')) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

Status ParseArrayFilters(const std::vector<bson::DocumentView>& filters,
                         const std::shared_ptr<const bson::StringComparator>& collator,
                         ModifierUpdate* update) {
  for (bson::DocumentView filter : filters) {
    std::set<std::string> ids;
    QUARRY_RETURN_IF_ERROR(CollectFilterIds(filter, &ids));
    if (ids.empty()) {
      return FailedToParse(
          "Cannot use an expression without a top-level field name in "
          "arrayFilters");
    }
    if (ids.size() > 1) {
      auto it = ids.begin();
      std::string a = *it++;
      std::string b = *it;
      return FailedToParse(
          "Error parsing array filter :: caused by :: Expected a single "
          "top-level field name, found '" +
          a + "' and '" + b + "'");
    }
    const std::string id = *ids.begin();
    if (!IsValidIdentifier(id)) {
      return BadValue(
          "Error parsing array filter :: caused by :: The top-level field name must "
          "be an alphanumeric string beginning with a lowercase letter, found '" +
          id + "'");
    }
    if (update->array_filters.count(id) != 0) {
      return FailedToParse("Found multiple array filters with the same top-level field name " + id);
    }
    StatusWith<Matcher> matcher = Matcher::Parse(filter, bson::DocumentView(), collator);
    if (!matcher.ok()) {
      return matcher.status().WithContext("Error parsing array filter :: caused by :");
    }
    update->array_filters.emplace(id, ArrayFilter{id, std::move(matcher).value()});
  }
  return Status::OK();
}

}  // namespace

bool ComponentLess(std::string_view a, std::string_view b) {
  if (IsAllDigits(a) && IsAllDigits(b) && a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

StatusWith<std::shared_ptr<ModifierUpdate>> ParseModifiers(bson::DocumentView update_doc,
                                                           const UpdateOptions& options) {
  auto update = std::make_shared<ModifierUpdate>();
  QUARRY_RETURN_IF_ERROR(ParseArrayFilters(options.array_filters, options.collator, update.get()));
  std::set<std::string> used_filters;
  for (const bson::Element& op_elem : update_doc) {
    OpKind kind;
    if (!OpKindOf(op_elem.key, &kind)) {
      return FailedToParse("Unknown modifier: " + std::string(op_elem.key) +
                           ". Expected a valid update modifier or pipeline-style update "
                           "specified as an array");
    }
    if (op_elem.value.type() != Type::kDocument) {
      return FailedToParse("Modifiers operate on fields but we found type " +
                           std::string(TypeName(op_elem.value)) +
                           " instead. For example: {$mod: {<field>: ...}} not {" +
                           std::string(op_elem.key) + ": " + op_elem.value.ToJson() + "}");
    }
    for (const bson::Element& field : op_elem.value.Document()) {
      QUARRY_RETURN_IF_ERROR(ValidatePath(field.key, *update, &used_filters));
      auto leaf = std::make_unique<LeafOp>();
      leaf->kind = kind;
      leaf->op_name = std::string(op_elem.key);
      leaf->path = std::string(field.key);
      if (kind == OpKind::kRename) {
        if (field.value.type() != Type::kString) {
          return BadValue("The 'to' field for $rename must be a string: " + std::string(field.key) +
                          ": " + field.value.ToJson());
        }
        std::string from = std::string(field.key);
        std::string to = std::string(field.value.String());
        QUARRY_RETURN_IF_ERROR(ValidatePath(to, *update, &used_filters));
        if (IsDynamic(from)) {
          return BadValue("The source field for $rename may not be dynamic: " + from);
        }
        if (IsDynamic(to)) {
          return BadValue("The destination field for $rename may not be dynamic: " + to);
        }
        if (from == to) {
          return BadValue("The source and target field for $rename must differ: " + from + ": \"" +
                          to + "\"");
        }
        if (to.rfind(from + ".", 0) == 0 || from.rfind(to + ".", 0) == 0) {
          return BadValue(
              "The source and target field for $rename must not be on the same "
              "path: " +
              from + ": \"" + to + "\"");
        }
        auto source = std::make_unique<LeafOp>();
        source->kind = OpKind::kRenameSource;
        source->op_name = "$rename";
        source->path = from;
        leaf->path = to;
        leaf->rename_from = from;
        update->renames.push_back(leaf.get());
        QUARRY_RETURN_IF_ERROR(Insert(&update->root, std::move(source)));
        QUARRY_RETURN_IF_ERROR(Insert(&update->root, std::move(leaf)));
        continue;
      }
      leaf->collator = options.collator;
      QUARRY_RETURN_IF_ERROR(ParseArg(leaf.get(), field.value));
      QUARRY_RETURN_IF_ERROR(Insert(&update->root, std::move(leaf)));
    }
  }
  for (const auto& [id, filter] : update->array_filters) {
    if (used_filters.count(id) == 0) {
      return FailedToParse("The array filter for identifier '" + id +
                           "' was not used in the update " + update_doc.ToJson());
    }
  }
  return update;
}

}  // namespace quarry::query::update_internal
