#include "vector/search_index_definition.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace quarry::vector {
namespace {

constexpr std::int64_t kMaxDimensions = 8192;

Status Invalid(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

Status NotYet(std::string message) {
  return Status(ErrorCode::kNotImplemented, std::move(message) + " is not supported by Quarry yet");
}

// An integer given as int32, int64 or a whole double, as drivers and shells send numbers.
std::optional<std::int64_t> WholeNumber(bson::ValueView value) {
  if (!value.IsNumber() || value.type() == bson::Type::kDecimal128) return std::nullopt;
  double d = value.AsDouble();
  if (!std::isfinite(d) || std::floor(d) != d) return std::nullopt;
  return value.AsInt64();
}

StatusWith<std::size_t> NumberIn(bson::ValueView value, const std::string& field, std::int64_t low,
                                 std::int64_t high) {
  std::optional<std::int64_t> n = WholeNumber(value);
  if (!n.has_value() || *n < low || *n > high) {
    return Invalid("\"" + field + "\" must be an integer from " + std::to_string(low) + " to " +
                   std::to_string(high));
  }
  return static_cast<std::size_t>(*n);
}

StatusWith<std::string> Similarity(bson::ValueView value, const std::string& field) {
  if (value.type() == bson::Type::kString) {
    std::string_view s = value.String();
    if (s == "euclidean" || s == "cosine" || s == "dotProduct") return std::string(s);
  }
  return Invalid("\"" + field + "\" must be one of \"euclidean\", \"cosine\", \"dotProduct\"");
}

StatusWith<std::string> Path(bson::ValueView value, const std::string& field) {
  if (value.type() != bson::Type::kString || value.String().empty()) {
    return Invalid("\"" + field + "\" must be a non-empty string");
  }
  std::string_view path = value.String();
  if (path.front() == '.' || path.back() == '.' || path.find("..") != std::string_view::npos ||
      path.front() == '$') {
    return Invalid("\"" + field + "\" is not a valid field path: \"" + std::string(path) + "\"");
  }
  return std::string(path);
}

Status HnswOptions(bson::ValueView value, const std::string& field, VectorFieldDefinition* out) {
  if (value.type() != bson::Type::kDocument) return Invalid("\"" + field + "\" must be a document");
  for (const bson::Element& e : value.Document()) {
    const std::string name = field + "." + std::string(e.key);
    if (e.key == "maxEdges") {
      QUARRY_ASSIGN_OR_RETURN(out->max_edges, NumberIn(e.value, name, 16, 64));
    } else if (e.key == "numEdgeCandidates") {
      QUARRY_ASSIGN_OR_RETURN(out->num_edge_candidates, NumberIn(e.value, name, 100, 3200));
    } else {
      return Invalid("unknown field \"" + name + "\"");
    }
  }
  return Status::OK();
}

StatusWith<VectorFieldDefinition> VectorField(bson::DocumentView field, const std::string& at) {
  VectorFieldDefinition out;
  bool has_dimensions = false, has_similarity = false;
  for (const bson::Element& e : field) {
    const std::string name = at + "." + std::string(e.key);
    if (e.key == "type") continue;
    if (e.key == "path") {
      QUARRY_ASSIGN_OR_RETURN(out.path, Path(e.value, name));
    } else if (e.key == "numDimensions") {
      QUARRY_ASSIGN_OR_RETURN(out.dimensions, NumberIn(e.value, name, 1, kMaxDimensions));
      has_dimensions = true;
    } else if (e.key == "similarity") {
      QUARRY_ASSIGN_OR_RETURN(out.similarity, Similarity(e.value, name));
      has_similarity = true;
    } else if (e.key == "quantization") {
      std::optional<Quantization> quantization;
      if (e.value.type() == bson::Type::kString) quantization = ParseQuantization(e.value.String());
      if (!quantization.has_value()) {
        return Invalid("\"" + name + "\" must be one of \"none\", \"scalar\", \"binary\"");
      }
      out.quantization = *quantization;
    } else if (e.key == "indexingMethod") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "hnsw" && e.value.String() != "flat")) {
        return Invalid("\"" + name + "\" must be \"hnsw\" or \"flat\"");
      }
      out.exact_only = e.value.String() == "flat";
    } else if (e.key == "hnswOptions") {
      QUARRY_RETURN_IF_ERROR(HnswOptions(e.value, name, &out));
    } else {
      return Invalid("unknown field \"" + name + "\"");
    }
  }
  if (out.path.empty()) return Invalid("\"" + at + ".path\" is required");
  if (!has_dimensions) return Invalid("\"" + at + ".numDimensions\" is required");
  if (!has_similarity) return Invalid("\"" + at + ".similarity\" is required");
  return out;
}

Status CheckDistinctPaths(const SearchIndexDefinition& def) {
  std::vector<std::string> paths = def.filter_paths;
  for (const VectorFieldDefinition& v : def.vectors) paths.push_back(v.path);
  std::sort(paths.begin(), paths.end());
  auto twice = std::adjacent_find(paths.begin(), paths.end());
  if (twice != paths.end()) return Invalid("the path \"" + *twice + "\" is indexed twice");
  return Status::OK();
}

bool IsUnder(std::string_view root, std::string_view path) {
  return !root.empty() && path.size() > root.size() + 1 && path.starts_with(root) &&
         path[root.size()] == '.';
}

// Every vector of a nested index is read from the elements; a filter path may lie under the
// root (a value of each element) or outside it (a value of the parent), never be the root.
Status CheckNestedRoot(const SearchIndexDefinition& def) {
  if (def.nested_root.empty()) return Status::OK();
  for (const VectorFieldDefinition& v : def.vectors) {
    if (!IsUnder(def.nested_root, v.path)) {
      return Invalid("the vector path \"" + v.path + "\" must be under the nestedRoot \"" +
                     def.nested_root + "\"");
    }
  }
  for (const std::string& path : def.filter_paths) {
    if (path == def.nested_root || IsUnder(path, def.nested_root)) {
      return Invalid("the filter path \"" + path + "\" must be under the nestedRoot \"" +
                     def.nested_root + "\" or outside it");
    }
  }
  return Status::OK();
}

StatusWith<SearchIndexDefinition> VectorSearchDefinition(bson::DocumentView definition) {
  SearchIndexDefinition out;
  bson::ValueView fields;
  for (const bson::Element& e : definition) {
    if (e.key == "fields") {
      fields = e.value;
    } else if (e.key == "nestedRoot") {
      QUARRY_ASSIGN_OR_RETURN(out.nested_root, Path(e.value, "nestedRoot"));
    } else {
      return Invalid("unknown field \"" + std::string(e.key) + "\" in a vectorSearch definition");
    }
  }
  if (fields.type() != bson::Type::kArray || fields.Document().empty()) {
    return Invalid("\"fields\" must be a non-empty array");
  }
  std::size_t i = 0;
  for (const bson::Element& e : fields.Document()) {
    const std::string at = "fields[" + std::to_string(i++) + "]";
    if (e.value.type() != bson::Type::kDocument)
      return Invalid("\"" + at + "\" must be a document");
    bson::DocumentView field = e.value.Document();
    bson::ValueView type = field.Get("type");
    if (type.type() != bson::Type::kString) return Invalid("\"" + at + ".type\" is required");
    if (type.String() == "vector") {
      QUARRY_ASSIGN_OR_RETURN(VectorFieldDefinition vector, VectorField(field, at));
      out.vectors.push_back(std::move(vector));
    } else if (type.String() == "filter") {
      for (const bson::Element& f : field) {
        if (f.key != "type" && f.key != "path") {
          return Invalid("unknown field \"" + at + "." + std::string(f.key) + "\"");
        }
      }
      QUARRY_ASSIGN_OR_RETURN(std::string path, Path(field.Get("path"), at + ".path"));
      out.filter_paths.push_back(std::move(path));
    } else if (type.String() == "autoEmbed" || type.String() == "text") {
      return NotYet("the field type \"" + std::string(type.String()) + "\"");
    } else {
      return Invalid("\"" + at + ".type\" must be \"vector\" or \"filter\"");
    }
  }
  if (out.vectors.empty()) return Invalid("a vectorSearch index needs a field of type \"vector\"");
  QUARRY_RETURN_IF_ERROR(CheckDistinctPaths(out));
  QUARRY_RETURN_IF_ERROR(CheckNestedRoot(out));
  return out;
}

// Filter types of the older form: what $vectorSearch's filter may use on a knnVector index.
bool IsFilterMappingType(std::string_view type) {
  return type == "token" || type == "number" || type == "boolean" || type == "objectId" ||
         type == "date" || type == "uuid";
}

Status MappedFields(bson::DocumentView fields, const std::string& prefix,
                    SearchIndexDefinition* out) {
  for (const bson::Element& e : fields) {
    const std::string path = prefix + std::string(e.key);
    const std::string at = "mappings.fields." + path;
    // A field may carry one mapping or an array of them.
    std::vector<bson::DocumentView> mappings;
    if (e.value.type() == bson::Type::kDocument) {
      mappings.push_back(e.value.Document());
    } else if (e.value.type() == bson::Type::kArray) {
      for (const bson::Element& m : e.value.Document()) {
        if (m.value.type() != bson::Type::kDocument)
          return Invalid("\"" + at + "\" must hold documents");
        mappings.push_back(m.value.Document());
      }
    } else {
      return Invalid("\"" + at + "\" must be a document or an array of documents");
    }
    for (bson::DocumentView mapping : mappings) {
      bson::ValueView type = mapping.Get("type");
      if (type.type() != bson::Type::kString) return Invalid("\"" + at + ".type\" is required");
      if (type.String() == "knnVector") {
        VectorFieldDefinition vector;
        vector.path = path;
        QUARRY_ASSIGN_OR_RETURN(vector.dimensions, NumberIn(mapping.Get("dimensions"),
                                                            at + ".dimensions", 1, kMaxDimensions));
        QUARRY_ASSIGN_OR_RETURN(vector.similarity,
                                Similarity(mapping.Get("similarity"), at + ".similarity"));
        out->vectors.push_back(std::move(vector));
      } else if (type.String() == "document") {
        bson::ValueView nested = mapping.Get("fields");
        if (nested.type() == bson::Type::kDocument) {
          QUARRY_RETURN_IF_ERROR(MappedFields(nested.Document(), path + ".", out));
        }
      } else if (IsFilterMappingType(type.String())) {
        out->filter_paths.push_back(path);
      }
      // Other mapping types serve $search, which answers its own error.
    }
  }
  return Status::OK();
}

StatusWith<SearchIndexDefinition> SearchDefinition(bson::DocumentView definition) {
  bson::ValueView mappings = definition.Get("mappings");
  if (mappings.type() != bson::Type::kDocument) {
    return Invalid("Attribute mappings missing: a search index definition needs \"mappings\"");
  }
  SearchIndexDefinition out;
  bson::ValueView fields = mappings.Document().Get("fields");
  if (fields.exists() && fields.type() != bson::Type::kDocument) {
    return Invalid("\"mappings.fields\" must be a document");
  }
  if (fields.type() == bson::Type::kDocument) {
    QUARRY_RETURN_IF_ERROR(MappedFields(fields.Document(), "", &out));
  }
  if (out.vectors.empty()) {
    return NotYet("a search index without a knnVector field (full-text search)");
  }
  std::sort(out.filter_paths.begin(), out.filter_paths.end());
  out.filter_paths.erase(std::unique(out.filter_paths.begin(), out.filter_paths.end()),
                         out.filter_paths.end());
  QUARRY_RETURN_IF_ERROR(CheckDistinctPaths(out));
  return out;
}

}  // namespace

const VectorFieldDefinition* SearchIndexDefinition::FindVector(std::string_view path) const {
  for (const VectorFieldDefinition& v : vectors) {
    if (v.path == path) return &v;
  }
  return nullptr;
}

bool SearchIndexDefinition::IsFilterPath(std::string_view path) const {
  return std::find(filter_paths.begin(), filter_paths.end(), path) != filter_paths.end();
}

bool SearchIndexDefinition::IsUnderNestedRoot(std::string_view path) const {
  return IsUnder(nested_root, path);
}

std::vector<std::string> SearchIndexDefinition::ElementFilterPaths() const {
  std::vector<std::string> out;
  for (const std::string& path : filter_paths) {
    if (IsUnderNestedRoot(path)) out.push_back(path.substr(nested_root.size() + 1));
  }
  return out;
}

std::vector<std::string> SearchIndexDefinition::ParentFilterPaths() const {
  std::vector<std::string> out;
  for (const std::string& path : filter_paths) {
    if (!IsUnderNestedRoot(path)) out.push_back(path);
  }
  return out;
}

StatusWith<SearchIndexDefinition> ParseSearchIndexDefinition(std::string_view type,
                                                             bson::DocumentView definition) {
  if (type == "vectorSearch") return VectorSearchDefinition(definition);
  if (type == "search") return SearchDefinition(definition);
  return Invalid("a search index's \"type\" must be \"search\" or \"vectorSearch\"");
}

}  // namespace quarry::vector
