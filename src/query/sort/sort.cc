// SortSpec: parsing and MongoDB's sort order over documents (arrays by their min or max
// element, missing as null, an empty array below null).
#include "query/sort/sort.h"

#include "bson/compare.h"

namespace quarry::query {
namespace {

Status BadOrdering() {
  return Status(ErrorCode::kBadValue,
                "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
}

// The value a missing field sorts as.
const bson::ValueView kNullValue(bson::Type::kNull, "", 0);

// Order of two key parts, ascending: MinKey < [] < null and missing < everything else.
int ComparePart(const SortKeyPart& a, const SortKeyPart& b,
                const bson::StringComparator* collator) {
  if (a.empty_array || b.empty_array) {
    if (a.empty_array && b.empty_array) return 0;
    const SortKeyPart& other = a.empty_array ? b : a;
    const int empty_first = a.empty_array ? -1 : 1;
    if (other.value.type() == bson::Type::kMinKey) return -empty_first;
    return empty_first;
  }
  return bson::CompareValues(a.value.exists() ? a.value : kNullValue,
                             b.value.exists() ? b.value : kNullValue, collator);
}

}  // namespace

StatusWith<SortSpec> SortSpec::Parse(bson::DocumentView spec,
                                     std::shared_ptr<const bson::StringComparator> collator) {
  SortSpec result;
  result.collator_ = std::move(collator);
  for (const bson::Element& element : spec) {
    const bson::ValueView value = element.value;
    if (value.type() == bson::Type::kDocument) {
      if (value.Document().Has("$meta")) {
        return Status(ErrorCode::kBadValue,
                      "$meta sort is not supported: Quarry has no text or search scores in "
                      "find");
      }
      return BadOrdering();
    }
    if (!value.IsNumber()) return BadOrdering();
    const double direction = value.AsDouble();
    if (direction != 1 && direction != -1) return BadOrdering();
    if (element.key == "$natural") {
      result.natural_ = direction > 0 ? 1 : -1;
      continue;
    }
    if (!element.key.empty() && element.key[0] == '$') {
      return Status(ErrorCode::kBadValue,
                    "FieldPath field names may not start with '$'. "
                    "Consider using $getField or $setField.");
    }
    QUARRY_ASSIGN_OR_RETURN(FieldPath path, FieldPath::Parse(element.key));
    result.fields_.push_back(SortField{std::move(path), direction > 0});
  }
  if (result.natural_ != 0 && !result.fields_.empty()) {
    return Status(ErrorCode::kBadValue, "$natural sort cannot be combined with other fields");
  }
  return result;
}

SortKey SortSpec::MakeKey(bson::DocumentView doc) const {
  SortKey key;
  key.reserve(fields_.size());
  for (const SortField& field : fields_) {
    std::vector<bson::ValueView> values = CollectPathValues(doc, field.path);
    SortKeyPart best;
    bool have = false;
    for (bson::ValueView value : values) {
      SortKeyPart part{value, value.type() == bson::Type::kArray && value.Document().empty()};
      if (!have) {
        best = part;
        have = true;
        continue;
      }
      const int c = ComparePart(part, best, collator_.get());
      if (field.ascending ? c < 0 : c > 0) best = part;
    }
    key.push_back(best);
  }
  return key;
}

int SortSpec::CompareKeys(const SortKey& a, const SortKey& b) const {
  for (std::size_t field_idx = 0; field_idx < fields_.size(); ++field_idx) {
    int c = ComparePart(a[field_idx], b[field_idx], collator_.get());
    if (!fields_[field_idx].ascending) c = -c;
    if (c != 0) return c;
  }
  return 0;
}

int SortSpec::Compare(bson::DocumentView a, bson::DocumentView b) const {
  return CompareKeys(MakeKey(a), MakeKey(b));
}

}  // namespace quarry::query
