#include "exec/covered_read.h"

#include <algorithm>

namespace quarry::exec {
namespace {

bool IsInclusionFlag(bson::ValueView value) {
  if (value.type() == bson::Type::kBool) return value.Bool();
  return value.IsNumber() && value.AsDouble() != 0;
}

bool IsExclusionFlag(bson::ValueView value) {
  if (value.type() == bson::Type::kBool) return !value.Bool();
  return value.IsNumber() && value.AsDouble() == 0;
}

// Whether a field's condition uses an operator whose bounds mongod never treats as exact
// ($exists, $elemMatch), so that it reads the document and does not cover the query.
bool BoundsInexact(bson::ValueView condition) {
  if (condition.type() != bson::Type::kDocument) return false;
  for (const bson::Element& e : condition.Document()) {
    if (e.key == "$exists" || e.key == "$elemMatch") return true;
    if (e.key == "$not" && BoundsInexact(e.value)) return true;
  }
  return false;
}

bool CollectFilterPaths(bson::DocumentView filter, std::vector<std::string>* paths) {
  for (const bson::Element& e : filter) {
    if (e.key == "$comment") continue;
    if (e.key == "$and" || e.key == "$or" || e.key == "$nor") {
      if (e.value.type() != bson::Type::kArray) return false;
      for (const bson::Element& branch : e.value.Document()) {
        if (branch.value.type() != bson::Type::kDocument) return false;
        if (!CollectFilterPaths(branch.value.Document(), paths)) return false;
      }
      continue;
    }
    if (e.key.starts_with('$') || BoundsInexact(e.value)) return false;
    paths->emplace_back(e.key);
  }
  return true;
}

// `path` is `field` or lies below it.
bool PathWithin(std::string_view path, std::string_view field) {
  return path.starts_with(field) && (path.size() == field.size() || path[field.size()] == '.');
}

}  // namespace

std::optional<std::vector<std::string>> InclusionPaths(bson::DocumentView projection) {
  std::vector<std::string> paths;
  bool id_included = true;
  for (const bson::Element& e : projection) {
    if (e.key.find('$') != std::string_view::npos) return std::nullopt;
    if (e.key == "_id") {
      if (IsExclusionFlag(e.value)) {
        id_included = false;
        continue;
      }
      if (!IsInclusionFlag(e.value)) return std::nullopt;
      continue;  // added below, once
    }
    if (!IsInclusionFlag(e.value)) return std::nullopt;
    paths.emplace_back(e.key);
  }
  // {_id: 0} alone excludes, and {} is no projection.
  if (paths.empty() && !(id_included && projection.Has("_id"))) return std::nullopt;
  if (id_included) paths.emplace_back("_id");
  return paths;
}

std::optional<std::vector<std::string>> FilterPaths(bson::DocumentView filter) {
  std::vector<std::string> paths;
  if (!CollectFilterPaths(filter, &paths)) return std::nullopt;
  return paths;
}

bool IndexCoversPaths(const IndexDescriptor& index, bool multikey,
                      const std::vector<std::string>& paths) {
  if (multikey || index.wildcard() != nullptr || index.text() != nullptr) return false;
  const std::vector<IndexField>& fields = index.fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    for (std::size_t j = 0; j < fields.size(); ++j) {
      if (i != j && PathWithin(fields[j].path, fields[i].path)) return false;
    }
  }
  return std::ranges::all_of(paths, [&](const std::string& path) {
    return std::ranges::any_of(
        fields, [&](const IndexField& field) { return PathWithin(path, field.path); });
  });
}

std::optional<std::vector<std::string>> CoveredReadPaths(
    const std::optional<std::vector<std::string>>& projection_paths, bson::DocumentView filter,
    const query::SortSpec& sort) {
  if (!projection_paths.has_value()) return std::nullopt;
  std::optional<std::vector<std::string>> paths = FilterPaths(filter);
  if (!paths.has_value()) return std::nullopt;
  paths->insert(paths->end(), projection_paths->begin(), projection_paths->end());
  for (const query::SortField& field : sort.fields()) paths->push_back(field.path.dotted());
  return paths;
}

}  // namespace quarry::exec
