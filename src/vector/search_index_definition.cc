#include "vector/search_index_definition.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "bson/builder.h"
#include "query/projection/projection.h"
#include "text/custom_analyzer.h"

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

// Types held whole: what $vectorSearch's filter may use on a knnVector index, and $search's
// equals, range, in and exists; 0 for other types.
unsigned ValueKindOfMapping(std::string_view type) {
  // The facet types are the older names Atlas still takes for fields that facets count.
  if (type == "token" || type == "stringFacet") return text::kTokenValues;
  if (type == "number" || type == "numberFacet") return text::kNumberValues;
  if (type == "dateFacet") return text::kDateValues;
  if (type == "boolean") return text::kBooleanValues;
  if (type == "objectId") return text::kObjectIdValues;
  if (type == "date") return text::kDateValues;
  if (type == "uuid") return text::kUuidValues;
  return 0;
}

// Types that serve $search operators Quarry does not have yet (each answers NotImplemented), so
// an index may map them and simply not hold them.
bool IsOtherMappingType(std::string_view type) { return type == "sortableNumberBetaV1"; }

// The options of a type held whole: token's normalizer, number's representation and the kinds
// of numbers it holds; every other option is refused.
Status ValueFieldOptions(std::string_view type, bson::DocumentView mapping, const std::string& at,
                         text::FullTextField* field) {
  const bool number = type == "number" || type == "numberFacet";
  for (const bson::Element& e : mapping) {
    const std::string name = at + "." + std::string(e.key);
    if (e.key == "type") continue;
    if (type == "token" && e.key == "normalizer") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "none" && e.value.String() != "lowercase")) {
        return Invalid("\"" + name + "\" must be \"none\" or \"lowercase\"");
      }
      if (e.value.String() == "lowercase") field->lowercase_tokens = true;
    } else if (number && e.key == "representation") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "double" && e.value.String() != "int64")) {
        return Invalid("\"" + name + "\" must be \"double\" or \"int64\"");
      }
      // int64 rounds doubles to whole numbers as they are indexed; Quarry holds them as given.
      if (e.value.String() == "int64") return NotYet("\"" + name + "\": \"int64\"");
    } else if (number && (e.key == "indexIntegers" || e.key == "indexDoubles")) {
      if (e.value.type() != bson::Type::kBool) return Invalid("\"" + name + "\" must be a boolean");
      if (!e.value.Bool()) return NotYet("\"" + name + "\": false");
    } else {
      return Invalid("unknown field \"" + name + "\"");
    }
  }
  return Status::OK();
}

using CustomAnalyzers = std::vector<std::shared_ptr<const text::CustomAnalyzer>>;

StatusWith<const text::SearchAnalyzer*> AnalyzerNamed(bson::ValueView value, const std::string& at,
                                                      const CustomAnalyzers& custom) {
  if (value.type() != bson::Type::kString) return Invalid("\"" + at + "\" must be a string");
  for (const auto& analyzer : custom) {
    if (analyzer->name() == value.String()) return &analyzer->analyzer();
  }
  const text::SearchAnalyzer* analyzer = text::SearchAnalyzer::Find(value.String());
  if (analyzer == nullptr) {
    // Atlas has more built-in language analyzers than Quarry.
    if (value.String().starts_with("lucene.")) {
      return NotYet("the analyzer \"" + std::string(value.String()) + "\"" +
                    std::string(text::kSupportedAnalyzers));
    }
    return Invalid("the analyzer \"" + std::string(value.String()) +
                   "\" is neither built in nor one of the definition's analyzers");
  }
  return analyzer;
}

// The definition's typeSets by name.
using TypeSets = std::map<std::string, const text::FullTextField*, std::less<>>;

// What the fields of a mapping read besides their own options.
struct MappingContext {
  const CustomAnalyzers& custom;
  const TypeSets& type_sets;
};

// dynamic: a boolean, or {typeSet: <name>}: the document's unnamed fields mapped by that
// typeSet.
Status Dynamic(bson::ValueView value, const std::string& at, const TypeSets& type_sets,
               text::FullTextField* document) {
  if (value.type() == bson::Type::kDocument) {
    bson::ValueView name = value.Document().Get("typeSet");
    for (const bson::Element& e : value.Document()) {
      if (e.key != "typeSet") {
        return Invalid("unknown field \"" + at + "." + std::string(e.key) + "\"");
      }
    }
    if (name.type() != bson::Type::kString) {
      return Invalid("\"" + at + "\" must be a boolean or {typeSet: <name>}");
    }
    auto found = type_sets.find(name.String());
    if (found == type_sets.end()) {
      return Invalid("\"" + at + ".typeSet\": no typeSet is named \"" + std::string(name.String()) +
                     "\"");
    }
    document->dynamic = true;
    document->dynamic_fields = found->second;
    return Status::OK();
  }
  if (value.type() != bson::Type::kBool) return Invalid("\"" + at + "\" must be a boolean");
  document->dynamic = value.Bool();
  return Status::OK();
}

Status StringField(bson::DocumentView mapping, const std::string& at, const CustomAnalyzers& custom,
                   text::FullTextField* field);

// A string field's multi: {<name>: <a string mapping without multi>, ...}.
Status MultiAnalyzers(bson::ValueView multi, const std::string& at, const CustomAnalyzers& custom,
                      text::FullTextField* field) {
  if (multi.type() != bson::Type::kDocument) return Invalid("\"" + at + "\" must be a document");
  for (const bson::Element& e : multi.Document()) {
    const std::string name = at + "." + std::string(e.key);
    if (e.key.empty()) return Invalid("\"" + at + "\" names a multi analyzer \"\"");
    if (e.value.type() != bson::Type::kDocument)
      return Invalid("\"" + name + "\" must be a document");
    const bson::DocumentView other = e.value.Document();
    if (other.Get("type").type() != bson::Type::kString || other.Get("type").String() != "string") {
      return Invalid("\"" + name + ".type\" must be \"string\"");
    }
    if (other.Get("multi").exists()) return Invalid("\"" + name + ".multi\": multi cannot nest");
    QUARRY_RETURN_IF_ERROR(StringField(other, name, custom, &field->multi[std::string(e.key)]));
  }
  return Status::OK();
}

Status StringField(bson::DocumentView mapping, const std::string& at, const CustomAnalyzers& custom,
                   text::FullTextField* field) {
  field->is_string = true;
  for (const bson::Element& e : mapping) {
    const std::string name = at + "." + std::string(e.key);
    if (e.key == "type") continue;
    if (e.key == "multi") {
      QUARRY_RETURN_IF_ERROR(MultiAnalyzers(e.value, name, custom, field));
      continue;
    }
    if (e.key == "analyzer") {
      QUARRY_ASSIGN_OR_RETURN(field->analyzer, AnalyzerNamed(e.value, name, custom));
    } else if (e.key == "searchAnalyzer") {
      QUARRY_ASSIGN_OR_RETURN(field->search_analyzer, AnalyzerNamed(e.value, name, custom));
    } else if (e.key == "indexOptions") {
      // Quarry keeps positions always, which every choice's queries are answered from.
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "docs" && e.value.String() != "freqs" &&
           e.value.String() != "positions" && e.value.String() != "offsets")) {
        return Invalid("\"" + name + "\" must be docs, freqs, positions or offsets");
      }
      if (e.value.String() != "positions" && e.value.String() != "offsets") {
        return NotYet("\"" + name + "\": \"" + std::string(e.value.String()) + "\"");
      }
    } else if (e.key == "store") {
      // Highlights read the stored document, so a field's own stored copy changes nothing.
      if (e.value.type() != bson::Type::kBool) return Invalid("\"" + name + "\" must be a boolean");
    } else if (e.key == "norms") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "include" && e.value.String() != "omit")) {
        return Invalid("\"" + name + "\" must be \"include\" or \"omit\"");
      }
      if (e.value.String() == "omit") return NotYet("\"" + name + "\": \"omit\"");
    } else if (e.key == "ignoreAbove" || e.key == "similarity") {
      return NotYet("\"" + name + "\"");
    } else {
      return Invalid("unknown field \"" + name + "\"");
    }
  }
  return Status::OK();
}

// geo: {indexShapes}; points are held, shapes (indexShapes: true) are not yet.
Status GeoFieldOptions(bson::DocumentView mapping, const std::string& at) {
  for (const bson::Element& e : mapping) {
    const std::string name = at + "." + std::string(e.key);
    if (e.key == "type") continue;
    if (e.key != "indexShapes") return Invalid("unknown field \"" + name + "\"");
    if (e.value.type() != bson::Type::kBool) return Invalid("\"" + name + "\" must be a boolean");
    if (e.value.Bool()) return NotYet("\"" + name + "\": true (geo shapes)");
  }
  return Status::OK();
}

// What a search mapping holds for $search besides vectors.
struct Held {
  bool strings = false;
  bool values = false;
};

Status AutocompleteField(bson::DocumentView mapping, const std::string& at,
                         const CustomAnalyzers& custom, text::FullTextField* field) {
  text::AutocompleteOptions options;
  for (const bson::Element& e : mapping) {
    const std::string name = at + "." + std::string(e.key);
    if (e.key == "type") continue;
    if (e.key == "analyzer") {
      QUARRY_ASSIGN_OR_RETURN(options.analyzer, AnalyzerNamed(e.value, name, custom));
    } else if (e.key == "tokenization") {
      const std::string_view t = e.value.type() == bson::Type::kString ? e.value.String() : "";
      if (t == "edgeGram") {
        options.tokenization = text::AutocompleteOptions::Tokenization::kEdgeGram;
      } else if (t == "rightEdgeGram") {
        options.tokenization = text::AutocompleteOptions::Tokenization::kRightEdgeGram;
      } else if (t == "nGram") {
        options.tokenization = text::AutocompleteOptions::Tokenization::kNGram;
      } else {
        return Invalid("\"" + name + "\" must be edgeGram, rightEdgeGram or nGram");
      }
    } else if (e.key == "minGrams" || e.key == "maxGrams") {
      QUARRY_ASSIGN_OR_RETURN(std::size_t grams, NumberIn(e.value, name, 1, 64));
      (e.key == "minGrams" ? options.min_grams : options.max_grams) = grams;
    } else if (e.key == "foldDiacritics") {
      if (e.value.type() != bson::Type::kBool) return Invalid("\"" + name + "\" must be a boolean");
      options.fold_diacritics = e.value.Bool();
    } else if (e.key == "similarity") {
      return NotYet("\"" + name + "\"");
    } else {
      return Invalid("unknown field \"" + name + "\"");
    }
  }
  if (options.min_grams > options.max_grams) {
    return Invalid("\"" + at + ".minGrams\" must not exceed maxGrams");
  }
  if (field->autocomplete.has_value()) return Invalid("\"" + at + "\" maps autocomplete twice");
  field->autocomplete = options;
  return Status::OK();
}

Status MappedFields(bson::DocumentView fields, const std::string& prefix,
                    const MappingContext& context, SearchIndexDefinition* out,
                    text::FullTextField* node, Held* held);

// embeddedDocuments: {dynamic, fields}: the mapping each sub-document at `path` is indexed by,
// on its own.
Status EmbeddedField(bson::DocumentView mapping, const std::string& at, const std::string& path,
                     const MappingContext& context, Held* held, text::FullTextField* field) {
  if (field->embedded != nullptr) return Invalid("\"" + at + "\" maps embeddedDocuments twice");
  text::FullTextField embedded = text::DocumentField();
  // What the sub-documents map for $vectorSearch (knnVector fields and their filters), which
  // their index does not serve.
  SearchIndexDefinition vectors;
  for (const bson::Element& e : mapping) {
    const std::string name = at + "." + std::string(e.key);
    if (e.key == "type") continue;
    if (e.key == "dynamic") {
      QUARRY_RETURN_IF_ERROR(Dynamic(e.value, name, context.type_sets, &embedded));
      if (embedded.dynamic) held->strings = true;
    } else if (e.key == "fields") {
      if (e.value.type() != bson::Type::kDocument) {
        return Invalid("\"" + name + "\" must be a document");
      }
      QUARRY_RETURN_IF_ERROR(
          MappedFields(e.value.Document(), path + ".", context, &vectors, &embedded, held));
    } else if (e.key == "storedSource") {
      return NotYet("\"" + name + "\" (embedded documents' stored source)");
    } else {
      return Invalid("unknown field \"" + name + "\"");
    }
  }
  if (!vectors.vectors.empty()) return NotYet("knnVector fields under \"" + at + "\"");
  field->embedded = std::make_shared<const text::FullTextField>(std::move(embedded));
  return Status::OK();
}

// The types `mappings` give one field (at `path`; empty for a typeSet's types, which hold no
// knnVector or filter and may not be documents).
Status FieldTypes(const std::vector<bson::DocumentView>& mappings, const std::string& path,
                  const std::string& at, const MappingContext& context, SearchIndexDefinition* out,
                  text::FullTextField* field, Held* held) {
  const bool type_set = path.empty();
  for (bson::DocumentView mapping : mappings) {
    bson::ValueView type = mapping.Get("type");
    if (type.type() != bson::Type::kString) return Invalid("\"" + at + ".type\" is required");
    const std::string_view name = type.String();
    if (type_set && name != "autocomplete" && name != "boolean" && name != "date" &&
        name != "geo" && name != "number" && name != "objectId" && name != "string" &&
        name != "token" && name != "uuid") {
      return Invalid("\"" + at + ".type\" \"" + std::string(name) +
                     "\" is not allowed in a typeSet (autocomplete, boolean, date, geo, number, "
                     "objectId, string, token and uuid are)");
    }
    if (name == "knnVector") {
      VectorFieldDefinition vector;
      vector.path = path;
      QUARRY_ASSIGN_OR_RETURN(vector.dimensions, NumberIn(mapping.Get("dimensions"),
                                                          at + ".dimensions", 1, kMaxDimensions));
      QUARRY_ASSIGN_OR_RETURN(vector.similarity,
                              Similarity(mapping.Get("similarity"), at + ".similarity"));
      out->vectors.push_back(std::move(vector));
    } else if (name == "string") {
      if (field->is_string) return Invalid("\"" + at + "\" maps the type string twice");
      QUARRY_RETURN_IF_ERROR(StringField(mapping, at, context.custom, field));
      held->strings = true;
    } else if (name == "autocomplete") {
      QUARRY_RETURN_IF_ERROR(AutocompleteField(mapping, at, context.custom, field));
      held->strings = true;
    } else if (name == "document") {
      field->is_document = true;
      bson::ValueView dynamic = mapping.Get("dynamic");
      if (dynamic.exists()) {
        QUARRY_RETURN_IF_ERROR(Dynamic(dynamic, at + ".dynamic", context.type_sets, field));
      }
      if (field->dynamic) held->strings = true;
      bson::ValueView nested = mapping.Get("fields");
      if (nested.exists() && nested.type() != bson::Type::kDocument) {
        return Invalid("\"" + at + ".fields\" must be a document");
      }
      if (nested.type() == bson::Type::kDocument) {
        QUARRY_RETURN_IF_ERROR(
            MappedFields(nested.Document(), path + ".", context, out, field, held));
      }
    } else if (name == "geo") {
      QUARRY_RETURN_IF_ERROR(GeoFieldOptions(mapping, at));
      field->value_kinds |= text::kGeoPoints;
      held->values = true;
    } else if (name == "embeddedDocuments") {
      QUARRY_RETURN_IF_ERROR(EmbeddedField(mapping, at, path, context, held, field));
    } else if (const unsigned kind = ValueKindOfMapping(name); kind != 0) {
      QUARRY_RETURN_IF_ERROR(ValueFieldOptions(name, mapping, at, field));
      if (!type_set) out->filter_paths.push_back(path);
      field->value_kinds |= kind;
      held->values = true;
    } else if (!IsOtherMappingType(name)) {
      return Invalid("\"" + at + ".type\" \"" + std::string(name) +
                     "\" is not a field type of a search index");
    }
  }
  return Status::OK();
}

Status MappedFields(bson::DocumentView fields, const std::string& prefix,
                    const MappingContext& context, SearchIndexDefinition* out,
                    text::FullTextField* node, Held* held) {
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
    QUARRY_RETURN_IF_ERROR(
        FieldTypes(mappings, path, at, context, out, &node->fields[std::string(e.key)], held));
  }
  return Status::OK();
}

// typeSets: [{name, types: [<field type>, ...]}]: each a field mapped as its types say, whose
// sub-documents are mapped by the same typeSet.
StatusWith<std::vector<std::shared_ptr<const text::FullTextField>>> TypeSetsOf(
    bson::ValueView value, const CustomAnalyzers& custom, TypeSets* by_name, Held* held) {
  if (value.type() != bson::Type::kArray) return Invalid("\"typeSets\" must be an array");
  std::vector<std::shared_ptr<const text::FullTextField>> out;
  std::size_t i = 0;
  for (const bson::Element& e : value.Document()) {
    const std::string at = "typeSets[" + std::to_string(i++) + "]";
    if (e.value.type() != bson::Type::kDocument)
      return Invalid("\"" + at + "\" must be a document");
    bson::ValueView name = e.value.Document().Get("name");
    bson::ValueView types = e.value.Document().Get("types");
    for (const bson::Element& f : e.value.Document()) {
      if (f.key != "name" && f.key != "types") {
        return Invalid("unknown field \"" + at + "." + std::string(f.key) + "\"");
      }
    }
    if (name.type() != bson::Type::kString ||
        name.String().find_first_not_of(" \t\n") == std::string_view::npos) {
      return Invalid("\"" + at + ".name\" must be a non-blank string");
    }
    if (by_name->contains(name.String())) {
      return Invalid("\"" + at + ".name\": the typeSet \"" + std::string(name.String()) +
                     "\" is defined twice");
    }
    if (types.type() != bson::Type::kArray || types.Document().empty()) {
      return Invalid("\"" + at + ".types\" must be a non-empty array of field types");
    }
    std::vector<bson::DocumentView> mappings;
    std::set<std::string_view> seen;
    for (const bson::Element& t : types.Document()) {
      if (t.value.type() != bson::Type::kDocument) {
        return Invalid("\"" + at + ".types\" must hold documents");
      }
      bson::ValueView type = t.value.Document().Get("type");
      if (type.type() == bson::Type::kString && !seen.insert(type.String()).second) {
        return Invalid("\"" + at + ".types\" names the type \"" + std::string(type.String()) +
                       "\" twice");
      }
      mappings.push_back(t.value.Document());
    }
    auto field = std::make_shared<text::FullTextField>(text::DocumentField());
    field->dynamic = true;
    field->dynamic_fields = field.get();
    const TypeSets none;
    SearchIndexDefinition unused;
    QUARRY_RETURN_IF_ERROR(FieldTypes(mappings, "", at + ".types", MappingContext{custom, none},
                                      &unused, field.get(), held));
    (*by_name)[std::string(name.String())] = field.get();
    out.push_back(std::move(field));
  }
  return out;
}

// synonyms: [{name, analyzer, source: {collection}}], each name once.
StatusWith<std::vector<text::FullTextMapping::SynonymSource>> SynonymSourcesOf(
    bson::ValueView synonyms, const CustomAnalyzers& custom) {
  if (synonyms.type() != bson::Type::kArray) return Invalid("\"synonyms\" must be an array");
  std::vector<text::FullTextMapping::SynonymSource> out;
  std::size_t i = 0;
  for (const bson::Element& e : synonyms.Document()) {
    const std::string at = "synonyms[" + std::to_string(i++) + "]";
    if (e.value.type() != bson::Type::kDocument)
      return Invalid("\"" + at + "\" must be a document");
    text::FullTextMapping::SynonymSource source;
    for (const bson::Element& f : e.value.Document()) {
      const std::string inner = at + "." + std::string(f.key);
      if (f.key == "name") {
        if (f.value.type() != bson::Type::kString || f.value.String().empty()) {
          return Invalid("\"" + inner + "\" must be a non-empty string");
        }
        source.name = std::string(f.value.String());
      } else if (f.key == "analyzer") {
        QUARRY_ASSIGN_OR_RETURN(source.analyzer, AnalyzerNamed(f.value, inner, custom));
      } else if (f.key == "source") {
        bson::ValueView collection = f.value.type() == bson::Type::kDocument
                                         ? f.value.Document().Get("collection")
                                         : bson::ValueView();
        if (collection.type() != bson::Type::kString || collection.String().empty()) {
          return Invalid("\"" + inner + "\" must be {collection: <name>}");
        }
        for (const bson::Element& g : f.value.Document()) {
          if (g.key != "collection") {
            return Invalid("unknown field \"" + std::string(g.key) + "\" in \"" + inner + "\"");
          }
        }
        source.collection = std::string(collection.String());
      } else {
        return Invalid("unknown field \"" + std::string(f.key) + "\" in \"" + at + "\"");
      }
    }
    for (const char* required : {"name", "analyzer", "source"}) {
      if (!e.value.Document().Get(required).exists()) {
        return Invalid("\"" + at + "." + required + "\" is required");
      }
    }
    for (const auto& other : out) {
      if (other.name == source.name) {
        return Invalid("\"" + at + ".name\": the synonym mapping \"" + source.name +
                       "\" is defined twice");
      }
    }
    out.push_back(std::move(source));
  }
  return out;
}

StatusWith<CustomAnalyzers> CustomAnalyzersOf(bson::ValueView analyzers) {
  if (analyzers.type() != bson::Type::kArray) return Invalid("\"analyzers\" must be an array");
  CustomAnalyzers out;
  std::size_t i = 0;
  for (const bson::Element& e : analyzers.Document()) {
    QUARRY_ASSIGN_OR_RETURN(
        std::shared_ptr<const text::CustomAnalyzer> analyzer,
        text::ParseCustomAnalyzer(e.value, "analyzers[" + std::to_string(i++) + "]"));
    for (const auto& other : out) {
      if (other->name() == analyzer->name()) {
        return Invalid("\"analyzers\" names \"" + analyzer->name() + "\" twice");
      }
    }
    out.push_back(std::move(analyzer));
  }
  return out;
}

// storedSource: true (every field), false (none) or {include | exclude: [<path>, ...]}, as the
// find projection that returnStoredSource applies.
StatusWith<std::optional<bson::Document>> StoredSource(bson::ValueView value) {
  if (value.type() == bson::Type::kBool) {
    if (!value.Bool()) return std::optional<bson::Document>();
    return std::optional<bson::Document>(bson::Document());
  }
  if (value.type() != bson::Type::kDocument) {
    return Invalid("\"storedSource\" must be a boolean or a document");
  }
  const bson::DocumentView options = value.Document();
  auto first = options.begin();
  if (first == options.end() || std::next(first) != options.end() ||
      (first->key != "include" && first->key != "exclude")) {
    return Invalid("\"storedSource\" must hold either include or exclude");
  }
  const std::string at = "storedSource." + std::string(first->key);
  if (first->value.type() != bson::Type::kArray || first->value.Document().empty()) {
    return Invalid("\"" + at + "\" must be a non-empty array of field paths");
  }
  bson::DocumentBuilder projection;
  for (const bson::Element& path : first->value.Document()) {
    if (path.value.type() != bson::Type::kString || path.value.String().empty()) {
      return Invalid("\"" + at + "\" must hold field paths");
    }
    projection.AppendInt32(path.value.String(), first->key == "include" ? 1 : 0);
  }
  bson::Document out = std::move(projection).Finish();
  StatusWith<query::Projection> parsed = query::Projection::Parse(out.view());
  if (!parsed.ok()) {
    return Invalid("\"" + at + "\": " + std::string(parsed.status().reason()));
  }
  return std::optional<bson::Document>(std::move(out));
}

StatusWith<SearchIndexDefinition> SearchDefinition(bson::DocumentView definition) {
  bson::ValueView mappings = definition.Get("mappings");
  if (mappings.type() != bson::Type::kDocument) {
    return Invalid("Attribute mappings missing: a search index definition needs \"mappings\"");
  }
  SearchIndexDefinition out;
  text::FullTextMapping full_text;
  // The custom analyzers first: the index's and the fields' analyzers may name them.
  if (bson::ValueView analyzers = definition.Get("analyzers"); analyzers.exists()) {
    QUARRY_ASSIGN_OR_RETURN(full_text.custom_analyzers, CustomAnalyzersOf(analyzers));
  }
  for (const bson::Element& e : definition) {
    if (e.key == "mappings") continue;
    if (e.key == "analyzer") {
      QUARRY_ASSIGN_OR_RETURN(full_text.analyzer,
                              AnalyzerNamed(e.value, "analyzer", full_text.custom_analyzers));
    } else if (e.key == "searchAnalyzer") {
      QUARRY_ASSIGN_OR_RETURN(full_text.search_analyzer,
                              AnalyzerNamed(e.value, "searchAnalyzer", full_text.custom_analyzers));
    } else if (e.key == "analyzers") {
      continue;  // read first, above
    } else if (e.key == "synonyms") {
      QUARRY_ASSIGN_OR_RETURN(full_text.synonyms,
                              SynonymSourcesOf(e.value, full_text.custom_analyzers));
    } else if (e.key == "typeSets") {
      continue;  // read first, above
    } else if (e.key == "storedSource") {
      QUARRY_ASSIGN_OR_RETURN(out.stored_source, StoredSource(e.value));
    } else if (e.key == "numPartitions") {
      // How Atlas splits a large index; one in-memory index needs no partitions.
      if (!WholeNumber(e.value).has_value()) return Invalid("\"numPartitions\" must be an integer");
    } else {
      return Invalid("unknown field \"" + std::string(e.key) + "\" in a search definition");
    }
  }
  Held held;
  // What the typeSets hold counts only where a dynamic document names one.
  Held type_sets_held;
  TypeSets type_sets;
  if (bson::ValueView sets = definition.Get("typeSets"); sets.exists()) {
    QUARRY_ASSIGN_OR_RETURN(full_text.type_sets, TypeSetsOf(sets, full_text.custom_analyzers,
                                                            &type_sets, &type_sets_held));
  }
  const MappingContext context{full_text.custom_analyzers, type_sets};
  for (const bson::Element& e : mappings.Document()) {
    if (e.key == "dynamic") {
      QUARRY_RETURN_IF_ERROR(Dynamic(e.value, "mappings.dynamic", type_sets, &full_text.root));
      held.strings = held.strings || full_text.root.dynamic;
    } else if (e.key == "fields") {
      if (e.value.type() != bson::Type::kDocument) {
        return Invalid("\"mappings.fields\" must be a document");
      }
      QUARRY_RETURN_IF_ERROR(
          MappedFields(e.value.Document(), "", context, &out, &full_text.root, &held));
    } else {
      return Invalid("unknown field \"mappings." + std::string(e.key) + "\"");
    }
  }
  full_text.LinkEmbedded();
  // Values mapped beside knnVector fields filter $vectorSearch; the vector index holds them.
  if (held.strings || (held.values && out.vectors.empty())) out.full_text = std::move(full_text);
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
