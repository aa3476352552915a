#include "text/search_sort.h"

#include "bson/builder.h"
#include "bson/compare.h"

namespace quarry::text {
namespace {

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

// 1 or -1 as a number: true when descending.
StatusWith<bool> Order(bson::ValueView value, const std::string& at) {
  if (value.IsNumber() && (value.AsDouble() == 1 || value.AsDouble() == -1)) {
    return value.AsDouble() == -1;
  }
  return Bad("\"" + at + "\" must be 1 (ascending) or -1 (descending)");
}

Status ParseField(std::string_view path, bson::ValueView value, SearchSortField* field) {
  const std::string at = "sort." + std::string(path);
  if (value.type() != bson::Type::kDocument) {
    QUARRY_ASSIGN_OR_RETURN(field->descending, Order(value, at));
    return Status::OK();
  }
  bson::DocumentView options = value.Document();
  if (options.Get("$meta").exists()) {
    field->by_score = true;
    field->descending = true;
    for (const bson::Element& e : options) {
      if (e.key == "$meta") {
        if (e.value.type() != bson::Type::kString || e.value.String() != "searchScore") {
          return Bad("\"" + at + ".$meta\" must be \"searchScore\"");
        }
      } else if (e.key == "order") {
        QUARRY_ASSIGN_OR_RETURN(field->descending, Order(e.value, at + ".order"));
      } else {
        return Bad("\"" + at + "." + std::string(e.key) + "\" is not a known option");
      }
    }
    return Status::OK();
  }
  bool has_order = false;
  for (const bson::Element& e : options) {
    if (e.key == "order") {
      QUARRY_ASSIGN_OR_RETURN(field->descending, Order(e.value, at + ".order"));
      has_order = true;
    } else if (e.key == "noData") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "lowest" && e.value.String() != "highest")) {
        return Bad("\"" + at + ".noData\" must be \"lowest\" or \"highest\"");
      }
      field->no_data_highest = e.value.String() == "highest";
    } else {
      return Bad("\"" + at + "." + std::string(e.key) + "\" is not a known option");
    }
  }
  if (!has_order) return Bad("\"" + at + ".order\" is required");
  return Status::OK();
}

}  // namespace

StatusWith<SearchSort> ParseSearchSort(bson::ValueView spec) {
  if (spec.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "$search.sort must be a document");
  }
  SearchSort sort;
  for (const bson::Element& e : spec.Document()) {
    SearchSortField field;
    field.path = std::string(e.key);
    if (field.path.empty()) return Bad("$search.sort's field names must not be empty");
    QUARRY_RETURN_IF_ERROR(ParseField(e.key, e.value, &field));
    sort.fields.push_back(std::move(field));
  }
  if (sort.fields.empty()) return Bad("$search.sort must name at least one field");
  return sort;
}

bson::Document SortKeyOf(const SearchSort& sort, const InvertedIndex& index, std::uint32_t label) {
  auto held = index.values().find(label);
  bson::DocumentBuilder key;
  for (const SearchSortField& field : sort.fields) {
    if (field.by_score) {
      key.AppendNull(field.path);
      continue;
    }
    std::optional<bson::ValueView> chosen;
    if (held != index.values().end()) {
      for (const bson::Element& e : held->second.view()) {
        // Geo points are held as their documents, which do not sort, and a null is no value to
        // sort by: no data, as unheld values.
        if (e.key != field.path || e.value.type() == bson::Type::kDocument ||
            e.value.type() == bson::Type::kNull) {
          continue;
        }
        const int c = chosen.has_value() ? bson::CompareValues(e.value, *chosen) : 0;
        if (!chosen.has_value() || (field.descending ? c > 0 : c < 0)) chosen = e.value;
      }
    }
    if (chosen.has_value()) {
      key.Append(field.path, *chosen);
    } else if (field.no_data_highest) {
      key.AppendMaxKey(field.path);
    } else {
      key.AppendMinKey(field.path);
    }
  }
  return std::move(key).Finish();
}

int CompareSortKeys(const SearchSort& sort, bson::DocumentView a, double a_score,
                    bson::DocumentView b, double b_score) {
  auto next_a = a.begin(), next_b = b.begin();
  for (const SearchSortField& field : sort.fields) {
    int c = 0;
    if (field.by_score) {
      c = a_score < b_score ? -1 : a_score > b_score ? 1 : 0;
    } else {
      c = bson::CompareValues(next_a->value, next_b->value);
    }
    ++next_a;
    ++next_b;
    if (c != 0) return field.descending ? -c : c;
  }
  return 0;
}

}  // namespace quarry::text
