// Which strings of a document an Atlas Search index holds, and with which analyzers: the
// string fields its `mappings` name, and with `dynamic: true` every string of the documents it
// maps.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"
#include "text/search_analyzer.h"

namespace quarry::text {

// The kinds of non-text values an index holds for equals, range, in and exists, as bits.
enum ValueKind : unsigned {
  kTokenValues = 1,  // strings, whole (type "token")
  kNumberValues = 2,
  kDateValues = 4,
  kBooleanValues = 8,
  kObjectIdValues = 16,
  kUuidValues = 32,
  kGeoPoints = 64,  // GeoJSON points (type "geo"), held as their documents
  // What a dynamic mapping holds besides text: every kind but tokens.
  kDynamicValues = kNumberValues | kDateValues | kBooleanValues | kObjectIdValues | kUuidValues,
};

// The kind of `value` (0: none an index holds). A GeoJSON point is kGeoPoints only to a geo
// field: elsewhere a document is walked into.
unsigned ValueKindOf(bson::ValueView value);

// An autocomplete mapping: each word of the field's strings (by `analyzer`) is held as grams,
// the sequences of minGrams to maxGrams characters at its start (edgeGram), its end
// (rightEdgeGram) or anywhere (nGram), diacritics folded unless told otherwise.
struct AutocompleteOptions {
  enum class Tokenization { kEdgeGram, kRightEdgeGram, kNGram };
  Tokenization tokenization = Tokenization::kEdgeGram;
  std::size_t min_grams = 2;
  std::size_t max_grams = 15;
  bool fold_diacritics = true;
  const SearchAnalyzer* analyzer = nullptr;  // null: lucene.standard

  // Calls `on_gram` with each gram of `word`.
  void ForEachGram(std::string_view word,
                   const std::function<void(std::string_view gram)>& on_gram) const;
  // `word` as grams are made of it: diacritics folded when the mapping says so.
  std::string Fold(std::string_view word) const;
};

// One mapped field: a string, a document of mapped fields, embedded documents, or several of
// them (a field may carry several mappings).
struct FullTextField {
  bool is_string = false;
  unsigned value_kinds = 0;       // ValueKind bits: the values held whole
  bool lowercase_tokens = false;  // a token field's normalizer "lowercase"
  std::optional<AutocompleteOptions> autocomplete;
  const SearchAnalyzer* analyzer = nullptr;         // null: the index's
  const SearchAnalyzer* search_analyzer = nullptr;  // null: `analyzer`, then the index's
  // A string field's `multi`: the same strings analyzed again, each held at MultiPath(path,
  // name).
  std::map<std::string, FullTextField, std::less<>> multi;
  bool is_document = false;
  bool dynamic = false;  // a document: its strings that `fields` does not name are held too
  // A dynamic document's typeSet: what its fields that `fields` does not name are mapped as
  // (null: strings as text and values whole). Owned by FullTextMapping::type_sets.
  const FullTextField* dynamic_fields = nullptr;
  std::map<std::string, FullTextField, std::less<>> fields;
  // {type: "embeddedDocuments"}: the mapping of each sub-document here (an array's, or a single
  // one), which is indexed on its own and searched only through the embeddedDocument operator.
  std::shared_ptr<const FullTextField> embedded;
};

// A document mapping: {type: "document"}, the root's kind.
inline FullTextField DocumentField() {
  FullTextField field;
  field.is_document = true;
  return field;
}

// Where the index holds `path`'s strings as its multi analyzer `name` makes them: `path`, a NUL
// and `name`, which no document's field can be.
std::string MultiPath(std::string_view path, std::string_view name);
bool IsMultiPath(std::string_view path);
// `path` as a message shows it: a multi analyzer's as `"title" (multi "english")`.
std::string QuotedPath(std::string_view path);

class CustomAnalyzer;  // custom_analyzer.h

struct FullTextMapping {
  FullTextField root = DocumentField();
  // The path of the embedded documents `root` maps, with a trailing '.' ("items."): their
  // fields' paths start with it. Empty for a collection's documents.
  std::string prefix;
  // The mappings of the embeddedDocuments fields outside other embedded documents, by path
  // (LinkEmbedded makes them; each links its own).
  std::map<std::string, std::shared_ptr<const FullTextMapping>, std::less<>> embedded;
  // The definition's own analyzers, which fields and the analyzers below may point into.
  std::vector<std::shared_ptr<const CustomAnalyzer>> custom_analyzers;
  const SearchAnalyzer* analyzer = &SearchAnalyzer::Standard();
  const SearchAnalyzer* search_analyzer = nullptr;  // null: `analyzer`
  // The definition's synonym mappings: each a name, the analyzer of its strings, and the
  // collection (in the index's database) whose documents hold them.
  struct SynonymSource {
    std::string name;
    const SearchAnalyzer* analyzer = nullptr;
    std::string collection;
  };
  std::vector<SynonymSource> synonyms;
  // The definition's typeSets, which dynamic documents point into: each maps a field as its
  // types say, and a document under it by the same typeSet.
  std::vector<std::shared_ptr<const FullTextField>> type_sets;

  // Calls `on_string` with each string value the index holds of `document` (strings in arrays
  // too), its dotted path and the analyzer that indexes it.
  void ForEachString(bson::DocumentView document,
                     const std::function<void(const std::string& path, std::string_view value,
                                              const SearchAnalyzer& analyzer)>& on_string) const;

  // Calls `on_value` with each non-text value the index holds of `document` (values in arrays
  // too, and nulls at any mapped path), its dotted path, and whether an array holds it (or one
  // of the documents above it); and `on_key` (when given) with the path of each key the mapping
  // maps, whatever its value.
  void ForEachValue(bson::DocumentView document,
                    const std::function<void(const std::string& path, bson::ValueView value,
                                             bool in_array)>& on_value,
                    const std::function<void(const std::string& path)>& on_key = nullptr) const;

  // Calls `on_string` with each string an autocomplete mapping holds, its path and options.
  void ForEachAutocompleteString(
      bson::DocumentView document,
      const std::function<void(const std::string& path, std::string_view value,
                               const AutocompleteOptions& options)>& on_string) const;

  // Calls `on_element` with each sub-document of `document` at an embeddedDocuments path (an
  // array's elements, or a single one) and that path.
  void ForEachEmbedded(bson::DocumentView document,
                       const std::function<void(const std::string& path,
                                                bson::DocumentView element)>& on_element) const;

  // Fills `embedded` from the fields' embedded mappings, recursively; once the fields are set.
  void LinkEmbedded();
  // The mapping of the embedded documents at `path`, or null when `path` is not mapped as
  // embeddedDocuments (here: nested ones are their parent mapping's).
  const FullTextMapping* EmbeddedAt(std::string_view path) const;

  // The autocomplete mapping of `path`, or null.
  const AutocompleteOptions* AutocompleteAt(std::string_view path) const;

  // The analyzer that makes the terms of `path`'s strings.
  const SearchAnalyzer& AnalyzerFor(std::string_view path) const;

  // The analyzer that analyzes a query's text on `path`.
  const SearchAnalyzer& SearchAnalyzerFor(std::string_view path) const;

  // Whether the index may hold strings at `path`: a string field, or any path under a dynamic
  // document.
  bool MayHoldStrings(std::string_view path) const;
  // The paths (MultiPath) of the multi analyzers `path`'s field maps.
  std::vector<std::string> MultiPathsOf(std::string_view path) const;

  // The ValueKind bits of what the index holds whole at `path`.
  unsigned ValueKindsAt(std::string_view path) const;
  // Whether `path`'s tokens are held lowercased (a token field's normalizer "lowercase").
  bool LowercaseTokensAt(std::string_view path) const;

 private:
  // The mapping of `path`'s last component, or null; then `under_dynamic` says whether the
  // document where the path leaves the mappings holds all its strings.
  const FullTextField* FieldOf(std::string_view path, bool* under_dynamic) const;
};

}  // namespace quarry::text
