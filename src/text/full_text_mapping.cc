#include "text/full_text_mapping.h"

#include <unicode/utf8.h>

#include <vector>

#include "bson/builder.h"
#include "text/analyzer.h"
#include "text/geo.h"

namespace quarry::text {
namespace {

using OnString = std::function<void(const std::string& path, std::string_view value,
                                    const SearchAnalyzer& analyzer)>;
using OnValue = std::function<void(const std::string& path, bson::ValueView value, bool in_array)>;
using OnAutocomplete = std::function<void(const std::string& path, std::string_view value,
                                          const AutocompleteOptions& options)>;
using OnEmbedded = std::function<void(const std::string& path, bson::DocumentView element)>;
using OnKey = std::function<void(const std::string& path)>;

// What a field found without a mapping of its own is under a dynamic document: a string, and a
// document whose strings are all held.
const FullTextField& DynamicField() {
  static const FullTextField kDynamic = [] {
    FullTextField field = DocumentField();
    field.is_string = true;
    field.dynamic = true;
    field.value_kinds = kDynamicValues;
    return field;
  }();
  return kDynamic;
}

// Which fields a walk follows: a field without a mapping of its own follows the dynamic one where
// its document is dynamic, or only where a typeSet maps it, or only named fields are followed.
enum class Unnamed { kFollowDynamic, kFollowTypeSets, kSkip };

// What a field without a mapping of its own is mapped as under `document`, or null.
const FullTextField* UnnamedField(const FullTextField& document, Unnamed unnamed) {
  if (!document.dynamic || unnamed == Unnamed::kSkip) return nullptr;
  if (document.dynamic_fields != nullptr) return document.dynamic_fields;
  return unnamed == Unnamed::kFollowDynamic ? &DynamicField() : nullptr;
}

// Calls visit(path, value, field, in_array) for each value of `document` that `mapping` maps, an
// array's elements at the array's path (in_array: an array holds the value or a document above
// it); a sub-document comes first whole, then its own values where its field maps it as a
// document.
template <typename Visit>
void WalkMapped(bson::DocumentView document, const FullTextField& mapping,
                const std::string& prefix, Unnamed unnamed, bool in_array, const Visit& visit,
                const OnKey* on_key = nullptr);

template <typename Visit>
void WalkMappedValue(bson::ValueView value, const FullTextField& field, const std::string& path,
                     Unnamed unnamed, bool in_array, const Visit& visit, const OnKey* on_key) {
  if (value.type() == bson::Type::kArray) {
    for (const bson::Element& e : value.Document()) {
      WalkMappedValue(e.value, field, path, unnamed, true, visit, on_key);
    }
    return;
  }
  visit(path, value, field, in_array);
  if (value.type() == bson::Type::kDocument && field.is_document) {
    WalkMapped(value.Document(), field, path + ".", unnamed, in_array, visit, on_key);
  }
}

// `on_key` (null: none) hears the path of each key the mapping maps, whatever its value.
template <typename Visit>
void WalkMapped(bson::DocumentView document, const FullTextField& mapping,
                const std::string& prefix, Unnamed unnamed, bool in_array, const Visit& visit,
                const OnKey* on_key) {
  for (const bson::Element& e : document) {
    auto named = mapping.fields.find(e.key);
    const FullTextField* field =
        named != mapping.fields.end() ? &named->second : UnnamedField(mapping, unnamed);
    if (field == nullptr) continue;
    const std::string path = prefix + std::string(e.key);
    if (on_key != nullptr) (*on_key)(path);
    WalkMappedValue(e.value, *field, path, unnamed, in_array, visit, on_key);
  }
}

// The mapping of `path`'s last component, or null; then `under_dynamic` says whether the
// document where the path leaves the mappings holds all its strings.
const FullTextField* FieldAt(const FullTextField& root, std::string_view path,
                             bool* under_dynamic) {
  const FullTextField* at = &root;
  for (;;) {
    const std::size_t dot = path.find('.');
    auto it = at->fields.find(path.substr(0, dot));
    const FullTextField* field = it != at->fields.end() ? &it->second
                                 : at->dynamic          ? at->dynamic_fields
                                                        : nullptr;
    if (field == nullptr) {
      *under_dynamic = at->dynamic;
      return nullptr;
    }
    if (dot == std::string_view::npos) return field;
    at = field;
    path.remove_prefix(dot + 1);
  }
}

// Adds to `out` a mapping for each embeddedDocuments field under `field` (at `path`), not
// looking into the embedded ones: their own mappings do.
void CollectEmbedded(const FullTextField& field, const std::string& path,
                     const FullTextMapping& outer, FullTextMapping* out) {
  for (const auto& [name, child] : field.fields) {
    const std::string child_path = path + name;
    if (child.embedded != nullptr) {
      auto inner = std::make_shared<FullTextMapping>();
      inner->root = *child.embedded;
      inner->prefix = child_path + ".";
      inner->custom_analyzers = outer.custom_analyzers;
      inner->analyzer = outer.analyzer;
      inner->search_analyzer = outer.search_analyzer;
      inner->synonyms = outer.synonyms;
      inner->type_sets = outer.type_sets;
      inner->LinkEmbedded();
      out->embedded[child_path] = std::move(inner);
    }
    if (child.is_document) CollectEmbedded(child, child_path + ".", outer, out);
  }
}

}  // namespace

std::string AutocompleteOptions::Fold(std::string_view word) const {
  return fold_diacritics ? StripDiacritics(word) : std::string(word);
}

void AutocompleteOptions::ForEachGram(
    std::string_view word, const std::function<void(std::string_view gram)>& on_gram) const {
  // Where each code point starts, and the end.
  std::vector<std::size_t> starts;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(word.data());
  const auto length = static_cast<std::int32_t>(word.size());
  for (std::int32_t i = 0; i < length;) {
    starts.push_back(static_cast<std::size_t>(i));
    U8_FWD_1(bytes, i, length);
  }
  const std::size_t n = starts.size();
  starts.push_back(word.size());
  auto gram = [&](std::size_t from, std::size_t count) {
    on_gram(word.substr(starts[from], starts[from + count] - starts[from]));
  };
  for (std::size_t count = min_grams; count <= std::min(max_grams, n); ++count) {
    switch (tokenization) {
      case Tokenization::kEdgeGram:
        gram(0, count);
        break;
      case Tokenization::kRightEdgeGram:
        gram(n - count, count);
        break;
      case Tokenization::kNGram:
        for (std::size_t from = 0; from + count <= n; ++from) gram(from, count);
        break;
    }
  }
}

unsigned ValueKindOf(bson::ValueView value) {
  switch (value.type()) {
    case bson::Type::kString:
      return kTokenValues;
    case bson::Type::kInt32:
    case bson::Type::kInt64:
    case bson::Type::kDouble:
      return kNumberValues;
    case bson::Type::kDate:
      return kDateValues;
    case bson::Type::kBool:
      return kBooleanValues;
    case bson::Type::kObjectId:
      return kObjectIdValues;
    case bson::Type::kBinary:
      return value.Binary().subtype == 4 ? static_cast<unsigned>(kUuidValues) : 0u;
    default:
      return 0;
  }
}

void FullTextMapping::ForEachValue(bson::DocumentView document, const OnValue& on_value,
                                   const OnKey& on_key) const {
  WalkMapped(
      document, root, prefix, Unnamed::kFollowDynamic, false,
      [&](const std::string& path, bson::ValueView value, const FullTextField& field,
          bool in_array) {
        // Every mapped field holds its nulls, whatever its type, as Lucene's null field
        // does.
        if (value.type() == bson::Type::kNull) {
          on_value(path, value, in_array);
          return;
        }
        if (value.type() == bson::Type::kDocument) {
          if ((field.value_kinds & kGeoPoints) != 0 && GeoPointOf(value).has_value()) {
            on_value(path, value, in_array);
          }
          return;
        }
        if ((ValueKindOf(value) & field.value_kinds) == 0) return;
        if (field.lowercase_tokens && value.type() == bson::Type::kString) {
          bson::DocumentBuilder lowered;
          lowered.AppendString("", LowercaseCodePoints(value.String()));
          const bson::Document holder = std::move(lowered).Finish();
          on_value(path, holder.view().Get(""), in_array);
        } else {
          on_value(path, value, in_array);
        }
      },
      on_key ? &on_key : nullptr);
}

void FullTextMapping::ForEachString(bson::DocumentView document, const OnString& on_string) const {
  WalkMapped(document, root, prefix, Unnamed::kFollowDynamic, false,
             [&](const std::string& path, bson::ValueView value, const FullTextField& field, bool) {
               if (value.type() != bson::Type::kString || !field.is_string) return;
               on_string(path, value.String(),
                         field.analyzer != nullptr ? *field.analyzer : *analyzer);
               for (const auto& [name, other] : field.multi) {
                 on_string(MultiPath(path, name), value.String(),
                           other.analyzer != nullptr ? *other.analyzer : *analyzer);
               }
             });
}

// A dynamic mapping holds autocomplete grams only where a typeSet says so.
void FullTextMapping::ForEachAutocompleteString(bson::DocumentView document,
                                                const OnAutocomplete& on_string) const {
  WalkMapped(document, root, prefix, Unnamed::kFollowTypeSets, false,
             [&](const std::string& path, bson::ValueView value, const FullTextField& field, bool) {
               if (value.type() == bson::Type::kString && field.autocomplete.has_value()) {
                 on_string(path, value.String(), *field.autocomplete);
               }
             });
}

// Only named fields: a dynamic mapping holds no embedded documents.
void FullTextMapping::ForEachEmbedded(bson::DocumentView document,
                                      const OnEmbedded& on_element) const {
  WalkMapped(document, root, prefix, Unnamed::kSkip, false,
             [&](const std::string& path, bson::ValueView value, const FullTextField& field, bool) {
               if (value.type() == bson::Type::kDocument && field.embedded != nullptr) {
                 on_element(path, value.Document());
               }
             });
}

void FullTextMapping::LinkEmbedded() {
  embedded.clear();
  CollectEmbedded(root, prefix, *this, this);
}

const FullTextMapping* FullTextMapping::EmbeddedAt(std::string_view path) const {
  auto it = embedded.find(path);
  return it != embedded.end() ? it->second.get() : nullptr;
}

const FullTextField* FullTextMapping::FieldOf(std::string_view path, bool* under_dynamic) const {
  *under_dynamic = false;
  if (!path.starts_with(prefix)) return nullptr;
  path.remove_prefix(prefix.size());
  const std::size_t nul = path.find('\0');
  if (nul == std::string_view::npos) return FieldAt(root, path, under_dynamic);
  bool ignored = false;
  const FullTextField* field = FieldAt(root, path.substr(0, nul), &ignored);
  if (field == nullptr) return nullptr;
  auto other = field->multi.find(path.substr(nul + 1));
  return other != field->multi.end() ? &other->second : nullptr;
}

std::string MultiPath(std::string_view path, std::string_view name) {
  std::string out(path);
  out.push_back('\0');
  out.append(name);
  return out;
}

bool IsMultiPath(std::string_view path) { return path.find('\0') != std::string_view::npos; }

std::string QuotedPath(std::string_view path) {
  const std::size_t nul = path.find('\0');
  if (nul == std::string_view::npos) return "\"" + std::string(path) + "\"";
  return "\"" + std::string(path.substr(0, nul)) + "\" (multi \"" +
         std::string(path.substr(nul + 1)) + "\")";
}

const AutocompleteOptions* FullTextMapping::AutocompleteAt(std::string_view path) const {
  bool under_dynamic = false;
  const FullTextField* field = FieldOf(path, &under_dynamic);
  return field != nullptr && field->autocomplete.has_value() ? &*field->autocomplete : nullptr;
}

const SearchAnalyzer& FullTextMapping::AnalyzerFor(std::string_view path) const {
  bool under_dynamic = false;
  const FullTextField* field = FieldOf(path, &under_dynamic);
  if (field != nullptr && field->is_string && field->analyzer != nullptr) return *field->analyzer;
  return *analyzer;
}

const SearchAnalyzer& FullTextMapping::SearchAnalyzerFor(std::string_view path) const {
  bool under_dynamic = false;
  const FullTextField* field = FieldOf(path, &under_dynamic);
  if (field != nullptr && field->is_string) {
    if (field->search_analyzer != nullptr) return *field->search_analyzer;
    if (field->analyzer != nullptr) return *field->analyzer;
  }
  return search_analyzer != nullptr ? *search_analyzer : *analyzer;
}

std::vector<std::string> FullTextMapping::MultiPathsOf(std::string_view path) const {
  std::vector<std::string> out;
  bool under_dynamic = false;
  if (const FullTextField* field = FieldOf(path, &under_dynamic)) {
    for (const auto& [name, other] : field->multi) out.push_back(MultiPath(path, name));
  }
  return out;
}

bool FullTextMapping::MayHoldStrings(std::string_view path) const {
  bool under_dynamic = false;
  const FullTextField* field = FieldOf(path, &under_dynamic);
  return (field != nullptr && field->is_string) || (field == nullptr && under_dynamic);
}

bool FullTextMapping::LowercaseTokensAt(std::string_view path) const {
  bool under_dynamic = false;
  const FullTextField* field = FieldOf(path, &under_dynamic);
  return field != nullptr && field->lowercase_tokens;
}

unsigned FullTextMapping::ValueKindsAt(std::string_view path) const {
  bool under_dynamic = false;
  const FullTextField* field = FieldOf(path, &under_dynamic);
  if (field != nullptr) return field->value_kinds;
  return under_dynamic ? static_cast<unsigned>(kDynamicValues) : 0u;
}

}  // namespace quarry::text
