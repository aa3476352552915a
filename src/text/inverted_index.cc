#include "text/inverted_index.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "bson/builder.h"

namespace quarry::text {
namespace {

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
// Values of an array are analyzed as one text with this gap between them, so a phrase never
// spans two values.
constexpr std::uint32_t kPositionGapBetweenValues = 100;

void AddLength(InvertedIndex::Field& field, std::uint32_t label, std::uint32_t terms) {
  if (field.lengths.size() <= label) field.lengths.resize(label + 1, 0);
  if (field.lengths[label] == 0) ++field.documents;
  field.lengths[label] += terms;
  field.total_length += terms;
}

bool AtOrUnder(std::string_view path, std::string_view wanted) {
  return path == wanted ||
         (path.size() > wanted.size() && path.starts_with(wanted) && path[wanted.size()] == '.');
}

}  // namespace

double InvertedIndex::Field::Idf(std::size_t labels_with_term) const {
  const double n = static_cast<double>(labels_with_term);
  const double total = static_cast<double>(documents);
  return std::log(1 + (total - n + 0.5) / (n + 0.5));
}

double InvertedIndex::Field::Score(std::uint32_t label, double frequency, double idf) const {
  const double dl = LengthOf(label);
  const double average =
      documents == 0 ? 1 : static_cast<double>(total_length) / static_cast<double>(documents);
  const double norm = kK1 * (1 - kB + kB * dl / (average > 0 ? average : 1));
  return idf * frequency / (frequency + norm);
}

void InvertedIndex::Set(std::uint32_t label, const FullTextMapping& mapping,
                        bson::DocumentView document) {
  Remove(label);
  if (held_.size() <= label) held_.resize(label + 1);
  std::vector<std::uintptr_t>& held = held_[label];
  const Field* run = nullptr;  // the field the last entries belong to
  auto hold = [&](Field& field, const std::string& term) {
    if (run != &field) {
      held.push_back(reinterpret_cast<std::uintptr_t>(&field) | 1);
      run = &field;
    }
    held.push_back(reinterpret_cast<std::uintptr_t>(&term));
  };
  std::map<std::string, std::uint32_t> next_position;  // path -> where its next value starts
  std::set<std::string> held_paths;  // where the document has a term or a value held
  mapping.ForEachString(document, [&](const std::string& path, std::string_view value,
                                      const SearchAnalyzer& analyzer) {
    Field& field = fields_[path];
    auto next = next_position.emplace(path, 0).first;
    const std::uint32_t base = next->second;
    std::uint32_t last = base;
    std::uint32_t count = 0;
    analyzer.Analyze(value, [&](std::string_view term, std::uint32_t position) {
      auto found = field.terms.find(term);
      if (found == field.terms.end())
        found = field.terms.emplace(std::string(term), Postings()).first;
      Positions& positions = found->second[label];
      if (positions.empty()) hold(field, found->first);
      // A token stacked on the one before (the same position) does not lengthen the value, as
      // Lucene's BM25 discounts overlaps.
      if (count == 0 || base + position != last) ++count;
      positions.push_back(base + position);
      last = base + position;
    });
    next->second = last + kPositionGapBetweenValues;
    // As in Lucene, a document counts toward a field's statistics once it holds a term there.
    if (count > 0) {
      AddLength(field, label, count);
      held_paths.insert(path);
    }
  });
  mapping.ForEachAutocompleteString(document, [&](const std::string& path, std::string_view value,
                                                  const AutocompleteOptions& options) {
    Field& field = autocomplete_fields_[path];
    auto next = next_position.emplace("\x01" + path, 0).first;
    const std::uint32_t base = next->second;
    std::uint32_t last = base;
    std::uint32_t words = 0;
    const SearchAnalyzer& analyzer =
        options.analyzer != nullptr ? *options.analyzer : SearchAnalyzer::Standard();
    // As Lucene counts with overlapping grams discounted: one per word that gave a gram.
    analyzer.Analyze(value, [&](std::string_view word, std::uint32_t position) {
      bool any = false;
      options.ForEachGram(options.Fold(word), [&](std::string_view gram) {
        any = true;
        auto found = field.terms.find(gram);
        if (found == field.terms.end()) {
          found = field.terms.emplace(std::string(gram), Postings()).first;
        }
        Positions& positions = found->second[label];
        if (positions.empty()) hold(field, found->first);
        positions.push_back(base + position);
      });
      last = base + position;
      if (any) ++words;
    });
    next->second = last + kPositionGapBetweenValues;
    if (words > 0) {
      AddLength(field, label, words);
      held_paths.insert(path);
    }
  });
  bson::DocumentBuilder values;
  std::vector<bool> in_arrays;
  std::set<std::string> keys;
  mapping.ForEachValue(
      document,
      [&](const std::string& path, bson::ValueView value, bool in_array) {
        values.Append(path, value);
        in_arrays.push_back(in_array);
        held_paths.insert(path);
      },
      [&](const std::string& path) { keys.insert(path); });
  if (!in_arrays.empty()) values_[label] = std::move(values).Finish();
  // A mapped key whose value the index holds nothing of (a type its field does not index, an
  // empty array) still exists for `exists`, as Lucene's field names record it.
  std::vector<std::string> alone;
  for (const std::string& key : keys) {
    auto under = held_paths.lower_bound(key);
    const bool held = under != held_paths.end() && AtOrUnder(*under, key);
    auto deeper = held_paths.lower_bound(key + ".");
    if (!held && !(deeper != held_paths.end() && deeper->starts_with(key + "."))) {
      alone.push_back(key);
    }
  }
  if (!alone.empty()) keys_alone_[label] = std::move(alone);
  if (std::find(in_arrays.begin(), in_arrays.end(), true) != in_arrays.end()) {
    values_in_arrays_[label] = std::move(in_arrays);
  }
  mapping.ForEachEmbedded(document, [&](const std::string& path, bson::DocumentView element) {
    const FullTextMapping* inner = mapping.EmbeddedAt(path);
    if (inner == nullptr) return;  // nested: the embedded index of its parent path holds it
    std::unique_ptr<Embedded>& embedded = embedded_[path];
    if (embedded == nullptr) embedded = std::make_unique<Embedded>();
    std::uint32_t child = static_cast<std::uint32_t>(embedded->parent.size());
    if (!embedded->free_labels.empty()) {
      child = embedded->free_labels.back();
      embedded->free_labels.pop_back();
      embedded->parent[child] = label;
    } else {
      embedded->parent.push_back(label);
    }
    embedded->children[label].push_back(child);
    embedded->index.Set(child, *inner, element);
  });
}

const InvertedIndex::Embedded* InvertedIndex::EmbeddedAt(std::string_view path) const {
  auto it = embedded_.find(path);
  return it != embedded_.end() ? it->second.get() : nullptr;
}

void InvertedIndex::ShrinkToFit() {
  for (auto& [path, embedded] : embedded_) embedded->index.ShrinkToFit();
  for (std::vector<std::uintptr_t>& terms : held_) terms.shrink_to_fit();
  for (auto* fields : {&fields_, &autocomplete_fields_}) {
    for (auto& [path, field] : *fields) {
      for (auto& [term, postings] : field.terms) postings.ShrinkToFit();
      field.lengths.shrink_to_fit();
    }
  }
}

std::optional<double> InvertedIndex::SingleNumberAt(std::uint32_t label,
                                                    std::string_view path) const {
  auto held = values_.find(label);
  if (held == values_.end()) return std::nullopt;
  auto in_arrays = values_in_arrays_.find(label);
  std::size_t i = 0;
  for (const bson::Element& e : held->second.view()) {
    const bool in_array = in_arrays != values_in_arrays_.end() && in_arrays->second[i];
    ++i;
    if (e.key == path && e.value.IsNumber() && !in_array) return e.value.AsDouble();
  }
  return std::nullopt;
}

void InvertedIndex::Remove(std::uint32_t label) {
  values_.erase(label);
  values_in_arrays_.erase(label);
  keys_alone_.erase(label);
  for (auto& [path, embedded] : embedded_) {
    auto children = embedded->children.find(label);
    if (children == embedded->children.end()) continue;
    for (const std::uint32_t child : children->second) {
      embedded->index.Remove(child);
      embedded->free_labels.push_back(child);
    }
    embedded->children.erase(children);
  }
  if (label >= held_.size()) return;
  Field* field = nullptr;
  for (const std::uintptr_t entry : held_[label]) {
    if ((entry & 1) != 0) {
      field = reinterpret_cast<Field*>(entry & ~std::uintptr_t{1});
      if (field->LengthOf(label) != 0) {
        field->total_length -= field->lengths[label];
        field->lengths[label] = 0;
        --field->documents;
      }
      continue;
    }
    auto postings = field->terms.find(*reinterpret_cast<const std::string*>(entry));
    if (postings == field->terms.end()) continue;
    postings->second.erase(label);
    if (postings->second.empty()) field->terms.erase(postings);
  }
  std::vector<std::uintptr_t>().swap(held_[label]);
}

std::vector<std::uint32_t> InvertedIndex::LabelsHolding(std::string_view path) const {
  std::set<std::uint32_t> labels;
  // A path mapped only as autocomplete holds its strings as grams alone.
  for (const auto* fields : {&fields_, &autocomplete_fields_}) {
    for (auto it = fields->lower_bound(path); it != fields->end() && it->first.starts_with(path);
         ++it) {
      if (!AtOrUnder(it->first, path)) continue;
      const std::vector<std::uint32_t>& lengths = it->second.lengths;
      for (std::uint32_t label = 0; label < lengths.size(); ++label) {
        if (lengths[label] != 0) labels.insert(label);
      }
    }
  }
  for (const auto& [label, values] : values_) {
    for (const bson::Element& e : values.view()) {
      if (AtOrUnder(e.key, path)) {
        labels.insert(label);
        break;
      }
    }
  }
  for (const auto& [label, keys] : keys_alone_) {
    if (std::any_of(keys.begin(), keys.end(),
                    [&](const std::string& key) { return AtOrUnder(key, path); })) {
      labels.insert(label);
    }
  }
  return {labels.begin(), labels.end()};
}

const InvertedIndex::Field* InvertedIndex::FieldAt(std::string_view path) const {
  auto it = fields_.find(path);
  return it != fields_.end() ? &it->second : nullptr;
}

const InvertedIndex::Field* InvertedIndex::AutocompleteFieldAt(std::string_view path) const {
  auto it = autocomplete_fields_.find(path);
  return it != autocomplete_fields_.end() ? &it->second : nullptr;
}

std::vector<std::string_view> InvertedIndex::Paths() const {
  std::vector<std::string_view> paths;
  paths.reserve(fields_.size());
  for (const auto& [path, field] : fields_) paths.push_back(path);
  return paths;
}

}  // namespace quarry::text
