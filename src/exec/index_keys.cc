// MongoDB's btree key generation (mongod's BtreeKeyGenerator, whose structure this follows so
// that its corner cases stay the same): the keys a document makes for an index.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bson/builder.h"
#include "exec/index_keys_internal.h"
#include "exec/key_values.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

constexpr char kNoBytes[] = "";
const bson::ValueView kNull(bson::Type::kNull, kNoBytes, 0);
const bson::ValueView kUndefined(bson::Type::kUndefined, kNoBytes, 0);

// A value a path reached, and the name of the field holding it (for error messages).
struct Reached {
  bson::ValueView value;
  std::string_view name;
  // Absent because the path's first field is missing, not a field below it nor a scalar where
  // the path goes on: the one absence that key values can stand for (key_values.h).
  bool first_field_missing = false;
};

// Follows `*path` down through documents and consumes the components it follows. Stops at the
// end of the path (returns the value there), at a missing field or a scalar with path left
// (returns absent), or at an array (returns it, with the rest of the path left in `*path`).
// mongod's extractElementAtPathOrArrayAlongPath.
Reached FollowToArray(bson::DocumentView doc, std::string_view* path) {
  for (bool first = true;; first = false) {
    const std::size_t dot = path->find('.');
    const std::string_view part = path->substr(0, dot);
    *path = dot == std::string_view::npos ? std::string_view() : path->substr(dot + 1);
    const bson::ValueView value = doc.Get(part);
    if (!value.exists()) return {.value = {}, .name = {}, .first_field_missing = first};
    if (value.type() == bson::Type::kArray || path->empty()) return {value, part};
    if (value.type() != bson::Type::kDocument) return {};
    doc = value.Document();
  }
}

// A numeric path component that names a position of the array being expanded ("a.0.b" over
// a: [{b: 1}, 5]). Every element of the array then indexes that one position, so the element
// and the path followed from it are looked up once.
struct Positional {
  bson::ValueView element;  // absent: the component names no position of this array
  bson::DocumentView array;
  std::string_view rest;  // what FollowToArray left of the path after `reached`
  Reached reached;        // FollowToArray from the array, through the position
};

Status AmbiguousFieldName(std::string_view field, bson::DocumentView array) {
  // mongod shortens the array in the message the same way.
  constexpr std::size_t kMaxShown = 1024;
  std::string shown = array.ToJson();
  if (shown.size() >= kMaxShown) {
    shown = shown.substr(0, kMaxShown / 3) + " .......... " +
            shown.substr(shown.size() - kMaxShown / 3);
  }
  return Status(ErrorCode::kLocation16746,
                "Ambiguous field name found in array (do not use numeric field names in embedded "
                "elements in an array), field: '" +
                    std::string(field) + "' for array: " + shown);
}

// The state of one branch of the expansion: each field's path still to follow (empty once the
// field is settled) and the value it settled on.
struct Branch {
  std::vector<std::string_view> paths;
  std::vector<bson::ValueView> values;
};

class KeyGenerator {
 public:
  KeyGenerator(const IndexDescriptor& index, KeyOutput output) : index_(index), output_(output) {}

  StatusWith<DocumentKeys> Run(bson::DocumentView doc) {
    if (!TrySingleKey(doc)) {
      no_positional_.resize(index_.fields().size());
      Branch root;
      for (const IndexField& field : index_.fields()) root.paths.push_back(field.path);
      root.values.resize(root.paths.size());
      QUARRY_RETURN_IF_ERROR(Expand(&root, doc, 0, no_positional_));
    }
    SortAndDedupKeys(&keys_);
    DocumentKeys out;
    out.keys = std::move(keys_);
    out.multikey = multikey_;
    out.key_values = std::move(key_values_);
    return out;
  }

 private:
  // The array a level expands, and how.
  struct ArrayExpansion {
    bson::ValueView array;
    std::uint32_t through_array;  // bit i: field i reached the array
    bool expand_elements;         // else a field that ends at the array takes it whole
  };

  // The common case, without allocating: when no key field reaches an array, `doc` makes one
  // key. False (and nothing emitted) when one does.
  bool TrySingleKey(bson::DocumentView doc) {
    std::array<bson::ValueView, kMaxIndexFields> values;
    unsigned not_found = 0;
    std::uint32_t missing = 0;  // bit i: the document lacks the i-th key field
    bool values_kept = true;
    const std::vector<IndexField>& fields = index_.fields();
    for (std::size_t field_idx = 0; field_idx < fields.size(); ++field_idx) {
      std::string_view path = fields[field_idx].path;
      const Reached reached = FollowToArray(doc, &path);
      if (reached.value.type() == bson::Type::kArray) return false;
      if (reached.value.exists()) {
        values[field_idx] = reached.value;
      } else {
        values[field_idx] = kNull;
        ++not_found;
        missing |= std::uint32_t{1} << field_idx;
        if (!reached.first_field_missing) values_kept = false;
      }
    }
    const std::span<const bson::ValueView> key_fields(values.data(), fields.size());
    Emit(key_fields, not_found);
    if (values_kept && !keys_.empty()) KeepValues(key_fields, missing);
    return true;
  }

  // The key values of the document's one key (key_values.h): field "i" holds the i-th key
  // field's value, a missing one left out.
  void KeepValues(std::span<const bson::ValueView> values, std::uint32_t missing) {
    if (output_ == KeyOutput::kMultikeyOnly) return;
    bson::DocumentBuilder b;
    for (std::size_t field_idx = 0; field_idx < values.size(); ++field_idx) {
      if ((missing & (std::uint32_t{1} << field_idx)) != 0) continue;
      b.Append(std::to_string(field_idx), values[field_idx]);
    }
    std::string bytes = std::move(b).FinishBytes();
    if (bytes.size() <= kMaxKeyValuesBytes) key_values_ = std::move(bytes);
  }

  // One level of mongod's _getKeysWithArray: takes each unfinished path of `branch` one step
  // further from `doc` and settles the fields that end; if some reach an array, makes the keys
  // of each of its elements, else emits the one key the branch now holds. Changes `branch`.
  Status Expand(Branch* branch, bson::DocumentView doc, unsigned not_found,
                const std::vector<Positional>& positional) {
    std::vector<std::string_view>& paths = branch->paths;
    Reached array;
    std::uint32_t through_array = 0;  // bit i: field i reached `array`
    // False when a positional component picked an array inside the array: its elements are
    // then indexed whole, not expanded.
    bool expand_elements = true;
    for (std::size_t field_idx = 0; field_idx < paths.size(); ++field_idx) {
      if (paths[field_idx].empty()) continue;
      bool nested = false;
      QUARRY_ASSIGN_OR_RETURN(Reached reached,
                              NextStep(doc, positional[field_idx], &paths[field_idx], &nested));
      if (!reached.value.exists()) {
        branch->values[field_idx] = kNull;
        paths[field_idx] = {};
        ++not_found;
        continue;
      }
      if (reached.value.type() != bson::Type::kArray) {
        branch->values[field_idx] = reached.value;
        continue;
      }
      through_array |= std::uint32_t{1} << field_idx;
      if (!array.value.exists()) {
        array = reached;
      } else if (reached.value.data() != array.value.data()) {
        return Status(ErrorCode::kCannotIndexParallelArrays, "cannot index parallel arrays [" +
                                                                 std::string(reached.name) + "] [" +
                                                                 std::string(array.name) + "]");
      }
      if (nested) expand_elements = false;
    }
    if (!array.value.exists()) {
      Emit(branch->values, not_found);
      return Status::OK();
    }
    ArrayExpansion expansion{array.value, through_array, expand_elements};
    Branch scratch;  // each element's branch, reusing one allocation
    const bson::DocumentView elements = array.value.Document();
    if (elements.empty()) {
      if (expand_elements) multikey_ = true;
      expansion.expand_elements = true;
      return ExpandElement(*branch, kUndefined, not_found, expansion, no_positional_, &scratch);
    }
    std::vector<Positional> next(paths.size());
    for (std::size_t field_idx = 0; field_idx < paths.size(); ++field_idx) {
      if ((through_array & (std::uint32_t{1} << field_idx)) == 0) continue;
      const std::string_view path = paths[field_idx];
      if (path.empty()) {
        if (expand_elements) multikey_ = true;
        continue;
      }
      Positional& position = next[field_idx];
      position.element = elements.Get(path.substr(0, path.find('.')));
      if (!position.element.exists()) {
        multikey_ = true;
        continue;
      }
      position.array = elements;
      position.rest = path;
      position.reached = FollowToArray(elements, &position.rest);
    }
    for (const bson::Element& element : elements) {
      QUARRY_RETURN_IF_ERROR(
          ExpandElement(*branch, element.value, not_found, expansion, next, &scratch));
    }
    return Status::OK();
  }

  // mongod's _getKeysArrEltFixed: the keys made by one element of the array `parent` reached,
  // expanded in `*scratch`.
  Status ExpandElement(const Branch& parent, bson::ValueView element, unsigned not_found,
                       const ArrayExpansion& expansion, const std::vector<Positional>& positional,
                       Branch* scratch) {
    *scratch = parent;
    for (std::size_t field_idx = 0; field_idx < parent.paths.size(); ++field_idx) {
      if ((expansion.through_array & (std::uint32_t{1} << field_idx)) != 0 &&
          parent.paths[field_idx].empty()) {
        scratch->values[field_idx] = expansion.expand_elements ? element : expansion.array;
      }
    }
    const bson::DocumentView element_doc =
        element.type() == bson::Type::kDocument ? element.Document() : bson::DocumentView();
    return Expand(scratch, element_doc, not_found, positional);
  }

  // mongod's _extractNextElement: one step of `*path` from `doc`, or from the position an
  // enclosing array's numeric component named. `*nested` says the position held an array.
  static StatusWith<Reached> NextStep(bson::DocumentView doc, const Positional& positional,
                                      std::string_view* path, bool* nested) {
    const std::string_view first = path->substr(0, path->find('.'));
    const bool in_doc = doc.Get(first).exists();
    if (in_doc && positional.element.exists()) {
      return AmbiguousFieldName(first, positional.array);
    }
    if (in_doc) return FollowToArray(doc, path);
    if (positional.element.exists()) {
      *nested = positional.element.type() == bson::Type::kArray;
      *path = positional.rest;
      return positional.reached;
    }
    return Reached{};
  }

  void Emit(std::span<const bson::ValueView> values, unsigned not_found) {
    if (index_.sparse() && not_found == values.size()) return;
    if (output_ == KeyOutput::kMultikeyOnly) return;
    const std::vector<IndexField>& fields = index_.fields();
    IndexKey key;
    for (std::size_t field_idx = 0; field_idx < fields.size(); ++field_idx) {
      storage::AppendIndexKey(values[field_idx], fields[field_idx].descending, index_.collator(),
                              &key.encoded);
    }
    if (output_ == KeyOutput::kKeysWithValues) {
      bson::DocumentBuilder values_doc;
      for (std::size_t field_idx = 0; field_idx < fields.size(); ++field_idx) {
        values_doc.Append(fields[field_idx].path, values[field_idx]);
      }
      key.values = std::move(values_doc).Finish();
    }
    keys_.push_back(std::move(key));
  }

  const IndexDescriptor& index_;
  const KeyOutput output_;
  std::vector<Positional> no_positional_;  // sized on the first array
  std::vector<IndexKey> keys_;
  bool multikey_ = false;
  std::string key_values_;
};

}  // namespace

void SortAndDedupKeys(std::vector<IndexKey>* keys) {
  if (keys->size() < 2) return;
  std::stable_sort(keys->begin(), keys->end(),
                   [](const IndexKey& a, const IndexKey& b) { return a.encoded < b.encoded; });
  keys->erase(
      std::unique(keys->begin(), keys->end(),
                  [](const IndexKey& a, const IndexKey& b) { return a.encoded == b.encoded; }),
      keys->end());
}

StatusWith<DocumentKeys> GenerateIndexKeys(const IndexDescriptor& index, bson::DocumentView doc,
                                           KeyOutput output) {
  return KeyGenerator(index, output).Run(doc);
}

}  // namespace quarry::exec
