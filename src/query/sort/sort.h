// Sort specifications ({a: 1, b: -1}) and MongoDB's order of documents under them.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "base/status.h"
#include "bson/string_comparator.h"
#include "bson/value.h"
#include "query/match/field_path.h"

namespace quarry::query {

struct SortField {
  FieldPath path;
  bool ascending = true;
  // {$meta: "textScore"}: the document's text score, highest first; `path` is empty.
  bool text_score = false;
};

// The key one document sorts by: one part per sort field. Parts point into the document, so a
// key is valid while the document's bytes are.
struct SortKeyPart {
  bson::ValueView value;     // absent for a missing field (sorts as null)
  bool empty_array = false;  // [] sorts below null and missing
};
using SortKey = std::vector<SortKeyPart>;

class SortSpec {
 public:
  SortSpec() = default;  // no sort

  // Parses a find/aggregate sort document. Values must be 1 or -1 (any numeric type): other
  // values fail with BadValue "$sort key ordering must be 1 (for ascending) or -1 (for
  // descending)"; {$meta: "textScore"} sorts by the text score a $text search gave, highest
  // first (other $meta sorts fail as in mongod). {$natural: 1 | -1} alone asks for storage order
  // or its reverse. Strings compare under `collator` (null: the
  // simple collation).
  static StatusWith<SortSpec> Parse(
      bson::DocumentView spec, std::shared_ptr<const bson::StringComparator> collator = nullptr);

  bool empty() const { return fields_.empty() && natural_ == 0; }
  const std::vector<SortField>& fields() const { return fields_; }
  // 1 or -1 for {$natural: ...}, else 0.
  int natural() const { return natural_; }
  // The collation strings sort under; null for the simple collation.
  const bson::StringComparator* collator() const { return collator_.get(); }
  // True when documents must be reordered (a non-empty spec that is not $natural).
  bool needs_sort() const { return !fields_.empty(); }
  // Whether a field sorts by {$meta: "textScore"}: only a pipeline's documents carry it, so
  // no index gives the order.
  bool sorts_by_text_score() const { return sorts_by_text_score_; }

  // The key `doc` sorts by: per field, the smallest value ascending or the largest descending
  // among the values the path reaches (arrays contribute their elements); a text score field's
  // is `metadata`'s textScore (the document's metadata as fields, which must outlive the key).
  SortKey MakeKey(bson::DocumentView doc, bson::DocumentView metadata = {}) const;
  // <0, 0, >0 as the document with key `a` goes before, with, or after the one with key `b`.
  int CompareKeys(const SortKey& a, const SortKey& b) const;
  // Convenience: CompareKeys(MakeKey(a), MakeKey(b)).
  int Compare(bson::DocumentView a, bson::DocumentView b) const;

 private:
  std::vector<SortField> fields_;
  int natural_ = 0;
  bool sorts_by_text_score_ = false;
  std::shared_ptr<const bson::StringComparator> collator_;
};

// Sorts `docs` by `spec`, stably (equal keys keep their input order). `docs` is any vector of
// things convertible to bson::DocumentView (bson::Document, DocumentView).
template <typename Doc>
void StableSortDocuments(const SortSpec& spec, std::vector<Doc>* docs);

}  // namespace quarry::query

// ---------------------------------------------------------------------------------------------
#include <algorithm>
#include <numeric>

namespace quarry::query {

template <typename Doc>
void StableSortDocuments(const SortSpec& spec, std::vector<Doc>* docs) {
  if (!spec.needs_sort() || docs->size() < 2) return;
  std::vector<SortKey> keys;
  keys.reserve(docs->size());
  for (const Doc& doc : *docs) keys.push_back(spec.MakeKey(bson::DocumentView(doc)));
  std::vector<std::size_t> order(docs->size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return spec.CompareKeys(keys[a], keys[b]) < 0;
  });
  std::vector<Doc> sorted;
  sorted.reserve(docs->size());
  for (std::size_t index : order) sorted.push_back(std::move((*docs)[index]));
  *docs = std::move(sorted);
}

}  // namespace quarry::query
