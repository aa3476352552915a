// updateDescription.disambiguatedPaths (showExpandedEvents, mongod 6.1+): a dotted path such as
// "a.0.1" cannot say whether "0" and "1" are array indices or field names, nor where a field
// name containing a dot starts and ends. Each such path is mapped to its real components.
#include <cctype>
#include <string>
#include <vector>

#include "bson/path.h"
#include "changestream/event_internal.h"

namespace quarry::changestream::internal {
namespace {

struct Component {
  std::string name;
  bool is_index = false;
  std::int32_t index = 0;
};

bool IsNumeric(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Resolves `parts` against `doc`, field names first; a field whose name contains dots matches
// the shortest run of parts that names it. False when the path does not resolve.
bool Resolve(bson::DocumentView doc, bool is_array, const std::vector<std::string_view>& parts,
             std::size_t begin, std::vector<Component>* out) {
  if (begin == parts.size()) return true;
  if (is_array) {
    if (!IsNumeric(parts[begin]) || parts[begin].size() > 9) return false;
    const int index = std::stoi(std::string(parts[begin]));
    bson::ValueView element = doc.Get(parts[begin]);
    out->push_back(Component{std::string(parts[begin]), true, index});
    if (begin + 1 == parts.size()) return true;  // appended elements need not exist in `doc`
    if (element.type() == bson::Type::kDocument || element.type() == bson::Type::kArray) {
      if (Resolve(element.Document(), element.type() == bson::Type::kArray, parts, begin + 1,
                  out)) {
        return true;
      }
    }
    out->pop_back();
    return false;
  }
  std::string name;
  for (std::size_t end = begin; end < parts.size(); ++end) {
    if (end > begin) name.push_back('.');
    name.append(parts[end]);
    bson::ValueView value = doc.Get(name);
    if (!value.exists()) continue;
    out->push_back(Component{name, false, 0});
    if (end + 1 == parts.size()) return true;
    if (value.type() == bson::Type::kDocument || value.type() == bson::Type::kArray) {
      if (Resolve(value.Document(), value.type() == bson::Type::kArray, parts, end + 1, out)) {
        return true;
      }
    }
    out->pop_back();
  }
  return false;
}

void AddIfAmbiguous(std::string_view path, bson::DocumentView doc, bson::DocumentBuilder* b) {
  std::vector<Component> components;
  if (!Resolve(doc, false, bson::SplitPath(path), 0, &components)) return;
  bool ambiguous = false;
  for (const Component& c : components) {
    if (!c.is_index && (IsNumeric(c.name) || c.name.find('.') != std::string::npos)) {
      ambiguous = true;
    }
  }
  if (!ambiguous) return;
  b->OpenArray(path);
  for (std::size_t component_idx = 0; component_idx < components.size(); ++component_idx) {
    const Component& c = components[component_idx];
    const std::string key = std::to_string(component_idx);
    if (c.is_index) {
      b->AppendInt32(key, c.index);
    } else {
      b->AppendString(key, c.name);
    }
  }
  b->Close();
}

}  // namespace

bson::Document DisambiguatedPaths(const query::UpdateDescription& description,
                                  bson::DocumentView before, bson::DocumentView after) {
  bson::DocumentBuilder b;
  for (const bson::Element& e : description.updated_fields.view()) AddIfAmbiguous(e.key, after, &b);
  for (const std::string& path : description.removed_fields) AddIfAmbiguous(path, before, &b);
  for (const auto& [path, new_size] : description.truncated_arrays) {
    if (!b.HasKey(path)) AddIfAmbiguous(path, after, &b);
  }
  return std::move(b).Finish();
}

}  // namespace quarry::changestream::internal
