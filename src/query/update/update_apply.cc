// Applying the UpdateNode tree: walking object nodes in path order (so new fields appear in
// lexicographic order, as mongod 5.0+), array nodes ($[], $[id]) element by element, the
// positional $, and creating missing paths.
#include "bson/path.h"
#include "query/update/update_internal.h"

namespace quarry::query::update_internal {
namespace {

using bson::Type;

std::optional<std::size_t> IndexOf(std::string_view component) {
  if (component.empty() || component.size() > 9) return std::nullopt;
  if (component.size() > 1 && component[0] == '0') return std::nullopt;
  std::size_t n = 0;
  for (char c : component) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  return n;
}

std::string JoinPath(const std::vector<std::string>& parts, std::size_t count) {
  std::string out;
  for (std::size_t part_idx = 0; part_idx < count; ++part_idx) {
    if (part_idx > 0) out.push_back('.');
    out += parts[part_idx];
  }
  return out;
}

std::string LastComponent(std::string_view path) {
  std::size_t dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

Status ApplyNode(const UpdateNode& node, std::vector<std::string>* components, ApplyState& state);

Status ApplyObjectNode(const UpdateNode& node, std::vector<std::string>* components,
                       ApplyState& state) {
  for (const auto& [key, child] : node.children) {
    components->push_back(key);
    Status status = ApplyNode(*child, components, state);
    components->pop_back();
    QUARRY_RETURN_IF_ERROR(status);
  }
  if (node.positional != nullptr) {
    if (state.details == nullptr || !state.details->array_index.has_value()) {
      return Status(ErrorCode::kBadValue,
                    "The positional operator did not find the match needed from the query.");
    }
    const std::string key = std::to_string(*state.details->array_index);
    if (node.children.count(key) != 0) {
      return Status(ErrorCode::kConflictingUpdateOperators,
                    "Update created a conflict at '" + JoinPath(*components, components->size()) +
                        "." + key + "'");
    }
    components->push_back(key);
    Status status = ApplyNode(*node.positional, components, state);
    components->pop_back();
    QUARRY_RETURN_IF_ERROR(status);
  }
  return Status::OK();
}

// True if `element` passes the arrayFilter of `key` ("$[]" passes everything).
bool ElementMatches(std::string_view key, const Value& element, const ApplyState& state) {
  std::string_view id = key.substr(2, key.size() - 3);
  if (id.empty()) return true;
  auto it = state.update->array_filters.find(id);
  if (it == state.update->array_filters.end()) return false;
  bson::DocumentBuilder wrapper;
  wrapper.Append(id, element.view());
  bson::Document doc = std::move(wrapper).Finish();
  return it->second.matcher.Matches(doc);
}

Status ApplyArrayNode(const UpdateNode& node, std::vector<std::string>* components,
                      ApplyState& state) {
  Location loc;
  loc.components = *components;
  Resolve(state.root, &loc);
  const std::string path = JoinPath(*components, components->size());
  if (loc.target == nullptr) {
    return Status(ErrorCode::kBadValue, "The path '" + path +
                                            "' must exist in the document in order to apply "
                                            "array updates.");
  }
  if (!loc.target->IsArray()) {
    return Status(ErrorCode::kBadValue, "Cannot apply array updates to non-array element " +
                                            LastComponent(path) + ": " +
                                            loc.target->ToValue().ToJson());
  }
  const std::size_t size = loc.target->elements().size();
  for (std::size_t index = 0; index < size; ++index) {
    // Decide which children apply before any of them changes the element.
    std::vector<const UpdateNode*> matching;
    {
      Location element_loc;
      element_loc.components = *components;
      Resolve(state.root, &element_loc);
      Value element = element_loc.target->elements()[index].ToValue();
      for (const auto& [key, child] : node.children) {
        if (ElementMatches(key, element, state)) matching.push_back(child.get());
      }
    }
    int leaves = 0;
    for (const UpdateNode* child : matching) leaves += child->leaf != nullptr ? 1 : 0;
    if (leaves > 1) {
      return Status(ErrorCode::kConflictingUpdateOperators,
                    "Update created a conflict at '" + path + "." + std::to_string(index) + "'");
    }
    components->push_back(std::to_string(index));
    for (const UpdateNode* child : matching) {
      Status status = ApplyNode(*child, components, state);
      if (!status.ok()) {
        components->pop_back();
        return status;
      }
    }
    components->pop_back();
  }
  return Status::OK();
}

Status ApplyNode(const UpdateNode& node, std::vector<std::string>* components, ApplyState& state) {
  if (node.leaf != nullptr) {
    Location loc;
    loc.components = *components;
    Resolve(state.root, &loc);
    return ApplyLeaf(*node.leaf, loc, state);
  }
  if (node.array_children) return ApplyArrayNode(node, components, state);
  return ApplyObjectNode(node, components, state);
}

}  // namespace

void Resolve(MutableValue* root, Location* loc) {
  const std::vector<std::string>& parts = loc->components;
  loc->path = JoinPath(parts, parts.size());
  loc->target = nullptr;
  loc->missing.clear();
  MutableValue* current = root;
  MutableValue* parent = nullptr;
  std::size_t part_idx = 0;
  for (; part_idx < parts.size(); ++part_idx) {
    MutableValue* next = nullptr;
    if (current->IsDocument()) {
      next = current->Find(parts[part_idx]);
    } else if (current->IsArray()) {
      std::optional<std::size_t> index = IndexOf(parts[part_idx]);
      if (index.has_value() && *index < current->elements().size()) {
        next = &current->elements()[*index];
      }
    }
    if (next == nullptr) break;
    parent = current;
    current = next;
  }
  if (part_idx == parts.size()) {
    loc->target = current;
    loc->parent = parent == nullptr ? root : parent;
    loc->parent_path = JoinPath(parts, parts.empty() ? 0 : parts.size() - 1);
    if (!parts.empty()) loc->missing.push_back(parts.back());
    return;
  }
  loc->parent = current;
  loc->parent_path = JoinPath(parts, part_idx);
  loc->missing.assign(parts.begin() + static_cast<std::ptrdiff_t>(part_idx), parts.end());
}

Status CreateAt(Location& loc, MutableValue value, ApplyState& state) {
  (void)state;
  MutableValue* parent = loc.parent;
  const std::string& first = loc.missing.front();
  // Build the new value from the inside out: {b: {c: value}} for missing ["a", "b", "c"].
  for (std::size_t part_idx = loc.missing.size(); part_idx-- > 1;) {
    MutableValue wrapper = MutableValue::NewDocument();
    wrapper.Append(loc.missing[part_idx], std::move(value));
    value = std::move(wrapper);
  }
  if (parent->IsDocument()) {
    parent->Append(first, std::move(value));
    return Status::OK();
  }
  if (parent->IsArray()) {
    std::optional<std::size_t> index = IndexOf(first);
    if (!index.has_value()) {
      return Status(ErrorCode::kPathNotViable, "Cannot create field '" + first + "' in element {" +
                                                   LastComponent(loc.parent_path) + ": " +
                                                   parent->ToValue().ToJson() + "}");
    }
    std::vector<MutableValue>& elements = parent->elements();
    if (*index > elements.size() + 1500000) {
      return Status(ErrorCode::kBadValue,
                    "can't backfill more than 1500000 elements in array " + loc.parent_path);
    }
    while (elements.size() < *index) elements.emplace_back(Value::Null());
    if (*index == elements.size()) {
      elements.push_back(std::move(value));
    } else {
      elements[*index] = std::move(value);
    }
    return Status::OK();
  }
  return Status(ErrorCode::kPathNotViable, "Cannot create field '" + first + "' in element {" +
                                               LastComponent(loc.parent_path) + ": " +
                                               parent->ToValue().ToJson() + "}");
}

std::string IdDescription(const ApplyState& state) {
  bson::ValueView id = state.original.Get("_id");
  if (!id.exists()) return "{}";
  return "{_id: " + id.ToJson() + "}";
}

Status ApplyModifiers(const ModifierUpdate& update, MutableValue* doc, ApplyState& state) {
  state.root = doc;
  state.update = &update;
  std::vector<std::string> components;
  QUARRY_RETURN_IF_ERROR(ApplyNode(update.root, &components, state));
  for (const std::string& source : state.moved_sources) {
    Location loc;
    for (const bson::PathComponent& part : bson::PathComponents(source)) {
      loc.components.emplace_back(part.name);
    }
    Resolve(doc, &loc);
    if (loc.target != nullptr && loc.parent->IsDocument()) loc.parent->Remove(loc.missing.back());
  }
  return Status::OK();
}

}  // namespace quarry::query::update_internal
