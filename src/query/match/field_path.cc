// FieldPath parsing, and the values a path reaches as sort keys see them.
#include "query/match/field_path.h"

#include "bson/path.h"

namespace quarry::query {

FieldPath FieldPath::FromDotted(std::string_view dotted) {
  FieldPath path;
  path.dotted_ = std::string(dotted);
  for (const bson::PathComponent& part : bson::PathComponents(dotted)) {
    path.parts_.emplace_back(static_cast<std::uint32_t>(part.offset),
                             static_cast<std::uint32_t>(part.name.size()));
  }
  return path;
}

StatusWith<FieldPath> FieldPath::Parse(std::string_view dotted) {
  if (dotted.empty()) {
    return Status(ErrorCode::kBadValue, "FieldPath cannot be constructed with empty string");
  }
  FieldPath path = FromDotted(dotted);
  for (const auto& [offset, length] : path.parts_) {
    if (length == 0) {
      return Status(ErrorCode::kBadValue,
                    "FieldPath field names may not be empty strings: '" + path.dotted_ + "'");
    }
  }
  return path;
}

std::string_view FieldPath::Suffix(std::size_t begin) const {
  if (begin >= parts_.size()) return {};
  return std::string_view(dotted_).substr(parts_[begin].first);
}

std::string_view FieldPath::Prefix(std::size_t end) const {
  if (end == 0) return {};
  if (end >= parts_.size()) return dotted_;
  return std::string_view(dotted_).substr(0, parts_[end - 1].first + parts_[end - 1].second);
}

bool FieldPath::IsPrefixOf(const FieldPath& other) const {
  if (parts_.size() > other.parts_.size()) return false;
  for (std::size_t part_idx = 0; part_idx < parts_.size(); ++part_idx) {
    if ((*this)[part_idx] != other[part_idx]) return false;
  }
  return true;
}

std::optional<std::size_t> ArrayIndexOf(std::string_view component) {
  if (component.empty() || component.size() > 18) return std::nullopt;
  if (component.size() > 1 && component[0] == '0') return std::nullopt;
  std::size_t index = 0;
  for (char c : component) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index;
}

namespace {

// Index-key style expansion: like TraversePath, but a leaf array gives its elements only (or
// itself when empty), and a missing field anywhere gives one absent value.
void Collect(bson::ValueView current, const FieldPath& path, std::size_t index,
             std::vector<bson::ValueView>* out) {
  while (index < path.size()) {
    if (current.type() == bson::Type::kDocument) {
      current = current.Document().Get(path[index]);
      ++index;
      if (!current.exists()) {
        out->push_back(bson::ValueView());
        return;
      }
      continue;
    }
    if (current.type() != bson::Type::kArray) {
      out->push_back(bson::ValueView());
      return;
    }
    const std::optional<std::size_t> wanted = ArrayIndexOf(path[index]);
    if (wanted.has_value()) {
      // A numeric component on an array of values picks that element, as index keys do.
      bson::ValueView element = current.Document().Get(path[index]);
      if (!element.exists()) {
        out->push_back(bson::ValueView());
        return;
      }
      current = element;
      ++index;
      continue;
    }
    if (current.Document().empty()) {
      out->push_back(bson::ValueView());
      return;
    }
    for (const bson::Element& element : current.Document()) {
      if (element.value.type() == bson::Type::kDocument) {
        Collect(element.value, path, index, out);
      } else {
        out->push_back(bson::ValueView());
      }
    }
    return;
  }
  if (current.type() == bson::Type::kArray && !current.Document().empty()) {
    for (const bson::Element& element : current.Document()) out->push_back(element.value);
    return;
  }
  out->push_back(current);
}

}  // namespace

std::vector<bson::ValueView> CollectPathValues(bson::DocumentView doc, const FieldPath& path) {
  std::vector<bson::ValueView> out;
  bson::ValueView root(bson::Type::kDocument, doc.data(), doc.size());
  Collect(root, path, 0, &out);
  return out;
}

}  // namespace quarry::query
