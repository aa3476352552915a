#include "text/search_facets.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "bson/builder.h"
#include "bson/compare.h"

namespace quarry::text {
namespace {

// Atlas's bounds on a string facet's buckets.
constexpr std::int64_t kMaxBuckets = 1000;

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

std::string_view TypeName(SearchFacet::Type type) {
  switch (type) {
    case SearchFacet::Type::kString:
      return "string";
    case SearchFacet::Type::kNumber:
      return "number";
    case SearchFacet::Type::kDate:
      return "date";
  }
  return "";
}

unsigned KindOf(SearchFacet::Type type) {
  switch (type) {
    case SearchFacet::Type::kString:
      return kTokenValues;
    case SearchFacet::Type::kNumber:
      return kNumberValues;
    case SearchFacet::Type::kDate:
      return kDateValues;
  }
  return 0;
}

Status CheckBoundaries(const SearchFacet& facet, const std::string& at) {
  std::optional<bson::ValueView> previous;
  std::size_t n = 0;
  for (const bson::Element& e : facet.boundaries.view()) {
    if (ValueKindOf(e.value) != KindOf(facet.type)) {
      return Bad("\"" + at + "\" must hold only " +
                 (facet.type == SearchFacet::Type::kNumber ? "numbers" : "dates"));
    }
    if (previous.has_value() && bson::CompareValues(*previous, e.value) >= 0) {
      return Bad("\"" + at + "\" must be in ascending order, each boundary once");
    }
    previous = e.value;
    ++n;
  }
  if (n < 2) return Bad("\"" + at + "\" must hold at least two boundaries");
  return Status::OK();
}

StatusWith<SearchFacet> ParseFacet(std::string_view name, bson::ValueView spec,
                                   const std::string& at) {
  if (spec.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  SearchFacet facet;
  facet.name = std::string(name);
  bson::ValueView type = spec.Document().Get("type");
  if (type.type() != bson::Type::kString) return Bad("\"" + at + ".type\" is required");
  if (type.String() == "string") {
    facet.type = SearchFacet::Type::kString;
  } else if (type.String() == "number") {
    facet.type = SearchFacet::Type::kNumber;
  } else if (type.String() == "date") {
    facet.type = SearchFacet::Type::kDate;
  } else {
    return Bad("\"" + at + ".type\" must be \"string\", \"number\" or \"date\"");
  }
  const bool ranges = facet.type != SearchFacet::Type::kString;
  bool has_boundaries = false;
  for (const bson::Element& e : spec.Document()) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "type") continue;
    if (e.key == "path") {
      if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
        return Bad("\"" + inner + "\" must be a field name");
      }
      facet.path = std::string(e.value.String());
    } else if (!ranges && e.key == "numBuckets") {
      if (!e.value.IsIntegral() || e.value.AsInt64() < 1 || e.value.AsInt64() > kMaxBuckets) {
        return Bad("\"" + inner + "\" must be a whole number from 1 to 1000");
      }
      facet.num_buckets = static_cast<std::size_t>(e.value.AsInt64());
    } else if (ranges && e.key == "boundaries") {
      if (e.value.type() != bson::Type::kArray) return Bad("\"" + inner + "\" must be an array");
      bson::ArrayBuilder boundaries;
      for (const bson::Element& b : e.value.Document()) boundaries.Append(b.value);
      facet.boundaries = std::move(boundaries).Finish();
      has_boundaries = true;
    } else if (ranges && e.key == "default") {
      if (e.value.type() != bson::Type::kString) return Bad("\"" + inner + "\" must be a string");
      facet.default_bucket = std::string(e.value.String());
    } else {
      return Bad("\"" + inner + "\" is not an option of a " + std::string(type.String()) +
                 " facet");
    }
  }
  if (facet.path.empty()) return Bad("\"" + at + ".path\" is required");
  if (ranges) {
    if (!has_boundaries) return Bad("\"" + at + ".boundaries\" is required");
    QUARRY_RETURN_IF_ERROR(CheckBoundaries(facet, at + ".boundaries"));
  }
  return facet;
}

// A range facet's buckets: how many labels hold a value in each range, then in none.
bson::Document CountRanges(const SearchFacet& facet, const InvertedIndex& index,
                           const std::vector<std::uint32_t>& labels) {
  std::vector<bson::ValueView> bounds;
  for (const bson::Element& e : facet.boundaries.view()) bounds.push_back(e.value);
  std::vector<std::int64_t> counts(bounds.size() - 1, 0);
  std::int64_t outside = 0;
  const unsigned kind = KindOf(facet.type);
  std::vector<bool> hit(counts.size());
  for (const std::uint32_t label : labels) {
    auto held = index.values().find(label);
    if (held == index.values().end()) continue;
    std::fill(hit.begin(), hit.end(), false);
    bool any_outside = false;
    for (const bson::Element& e : held->second.view()) {
      if (e.key != facet.path || ValueKindOf(e.value) != kind) continue;
      // The first boundary above the value ends its range.
      auto above = std::upper_bound(bounds.begin(), bounds.end(), e.value,
                                    [](bson::ValueView value, bson::ValueView bound) {
                                      return bson::CompareValues(value, bound) < 0;
                                    });
      if (above == bounds.begin() || above == bounds.end()) {
        any_outside = true;
      } else {
        hit[static_cast<std::size_t>(above - bounds.begin()) - 1] = true;
      }
    }
    for (std::size_t i = 0; i < hit.size(); ++i) counts[i] += hit[i] ? 1 : 0;
    if (any_outside) ++outside;
  }
  bson::ArrayBuilder buckets;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    bson::DocumentBuilder bucket;
    bucket.Append("_id", bounds[i]);
    bucket.AppendInt64("count", counts[i]);
    buckets.AppendDocument(std::move(bucket).Finish().view());
  }
  if (facet.default_bucket.has_value()) {
    bson::DocumentBuilder bucket;
    bucket.AppendString("_id", *facet.default_bucket);
    bucket.AppendInt64("count", outside);
    buckets.AppendDocument(std::move(bucket).Finish().view());
  }
  bson::DocumentBuilder out;
  out.AppendArray("buckets", std::move(buckets).Finish().view());
  return std::move(out).Finish();
}

// A string facet's buckets: the `num_buckets` values most labels hold.
bson::Document CountStrings(const SearchFacet& facet, const InvertedIndex& index,
                            const std::vector<std::uint32_t>& labels) {
  std::map<std::string_view, std::int64_t> counts;
  std::set<std::string_view> seen;  // one label's values, each counted once
  for (const std::uint32_t label : labels) {
    auto held = index.values().find(label);
    if (held == index.values().end()) continue;
    seen.clear();
    for (const bson::Element& e : held->second.view()) {
      if (e.key == facet.path && e.value.type() == bson::Type::kString &&
          seen.insert(e.value.String()).second) {
        ++counts[e.value.String()];
      }
    }
  }
  std::vector<std::pair<std::string_view, std::int64_t>> ranked(counts.begin(), counts.end());
  const std::size_t kept = std::min(facet.num_buckets, ranked.size());
  // Most frequent first; the map's order breaks ties by value.
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(kept),
                    ranked.end(), [](const auto& a, const auto& b) {
                      return a.second != b.second ? a.second > b.second : a.first < b.first;
                    });
  bson::ArrayBuilder buckets;
  for (std::size_t i = 0; i < kept; ++i) {
    bson::DocumentBuilder bucket;
    bucket.AppendString("_id", ranked[i].first);
    bucket.AppendInt64("count", ranked[i].second);
    buckets.AppendDocument(std::move(bucket).Finish().view());
  }
  bson::DocumentBuilder out;
  out.AppendArray("buckets", std::move(buckets).Finish().view());
  return std::move(out).Finish();
}

}  // namespace

StatusWith<FacetCollector> ParseFacetCollector(bson::ValueView spec) {
  if (spec.type() != bson::Type::kDocument) return Bad("\"facet\" must be a document");
  FacetCollector collector;
  bool has_facets = false;
  for (const bson::Element& e : spec.Document()) {
    if (e.key == "operator") {
      if (e.value.type() != bson::Type::kDocument) {
        return Bad("\"facet.operator\" must be a document naming one operator");
      }
      bson::DocumentView op = e.value.Document();
      auto first = op.begin();
      if (first == op.end() || std::next(first) != op.end()) {
        return Bad("\"facet.operator\" must name exactly one operator");
      }
      QUARRY_ASSIGN_OR_RETURN(collector.op, ParseSearchOperator(first->key, first->value));
    } else if (e.key == "facets") {
      if (e.value.type() != bson::Type::kDocument) {
        return Bad("\"facet.facets\" must be a document");
      }
      for (const bson::Element& f : e.value.Document()) {
        QUARRY_ASSIGN_OR_RETURN(SearchFacet facet,
                                ParseFacet(f.key, f.value, "facet.facets." + std::string(f.key)));
        collector.facets.push_back(std::move(facet));
      }
      has_facets = true;
    } else {
      return Bad("\"facet." + std::string(e.key) + "\" is not a known option");
    }
  }
  if (!has_facets) return Bad("\"facet.facets\" is required");
  if (collector.facets.empty()) return Bad("\"facet.facets\" must name at least one facet");
  return collector;
}

Status CheckFacetsMapped(const std::vector<SearchFacet>& facets, const FullTextMapping& mapping) {
  for (const SearchFacet& facet : facets) {
    if ((mapping.ValueKindsAt(facet.path) & KindOf(facet.type)) != 0) continue;
    const std::string_view needed = facet.type == SearchFacet::Type::kString   ? "token"
                                    : facet.type == SearchFacet::Type::kNumber ? "number"
                                                                               : "date";
    return Bad("Cannot facet on field \"" + facet.path + "\" (facet \"" + facet.name +
               "\") because the index does not map it as type \"" + std::string(needed) +
               "\", which a " + std::string(TypeName(facet.type)) + " facet counts");
  }
  return Status::OK();
}

bson::Document CountFacets(const std::vector<SearchFacet>& facets, const InvertedIndex& index,
                           const std::vector<std::uint32_t>& labels) {
  bson::DocumentBuilder out;
  for (const SearchFacet& facet : facets) {
    const bson::Document counted = facet.type == SearchFacet::Type::kString
                                       ? CountStrings(facet, index, labels)
                                       : CountRanges(facet, index, labels);
    out.AppendDocument(facet.name, counted.view());
  }
  return std::move(out).Finish();
}

bson::Document EmptyFacets(const std::vector<SearchFacet>& facets) {
  return CountFacets(facets, InvertedIndex(), {});
}

}  // namespace quarry::text
