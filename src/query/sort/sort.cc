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

// {$meta: "textScore"}, the one $meta sort Quarry has documents for.
Status ParseMetaSort(bson::DocumentView spec) {
  const bson::ValueView meta = spec.Get("$meta");
  if (!meta.exists()) {
    if (!spec.empty() && spec.FirstKey().starts_with("$")) {
      return Status(static_cast<ErrorCode>(17312),
                    "$meta is the only expression supported by $sort right now");
    }
    return BadOrdering();
  }
  if (spec.CountElements() != 1) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot have additional keys in a $meta sort specification");
  }
  if (meta.type() == bson::Type::kString && meta.String() == "textScore") return Status::OK();
  if (meta.type() == bson::Type::kString &&
      (meta.String() == "searchScore" || meta.String() == "vectorSearchScore" ||
       meta.String() == "randVal" || meta.String() == "geoNearDistance")) {
    return Status(ErrorCode::kBadValue,
                  "$meta sort by \"" + std::string(meta.String()) +
                      "\" is not supported by Quarry yet: project the value and sort by it");
  }
  return Status(static_cast<ErrorCode>(31138), "Illegal $meta sort: $meta: " + meta.ToJson());
}

}  // namespace

StatusWith<SortSpec> SortSpec::Parse(bson::DocumentView spec,
                                     std::shared_ptr<const bson::StringComparator> collator) {
  SortSpec result;
  result.collator_ = std::move(collator);
  for (const bson::Element& element : spec) {
    const bson::ValueView value = element.value;
    if (value.type() == bson::Type::kDocument) {
      QUARRY_RETURN_IF_ERROR(ParseMetaSort(value.Document()));
      result.fields_.push_back(SortField{FieldPath(), false, true});
      result.sorts_by_text_score_ = true;
      continue;
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

SortKey SortSpec::MakeKey(bson::DocumentView doc, bson::DocumentView metadata) const {
  SortKey key;
  key.reserve(fields_.size());
  for (const SortField& field : fields_) {
    if (field.text_score) {
      key.push_back(SortKeyPart{metadata.Get("textScore")});
      continue;
    }
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
