// SearchIndexRegistry's full-text queries: $search's matches, ranked as they are taken, and
// $searchMeta's facet counts.
#include <algorithm>

#include "vector/search_index_internal.h"
#include "vector/search_index_registry.h"

namespace quarry::vector {
using Built = SearchIndexRegistry::Built;

StatusWith<SearchIndexRegistry::TextMatches> SearchIndexRegistry::SearchText(
    storage::CollectionId collection, const std::string& index_id, const text::SearchOperator& op,
    std::shared_ptr<const text::SearchSort> sort, const Interrupt* interrupt) const {
  TextMatches matches;
  std::shared_ptr<Built> serving = Serving(collection, index_id);
  if (serving == nullptr || serving->full_text == nullptr) return matches;
  std::shared_lock lock(serving->mu);
  QUARRY_ASSIGN_OR_RETURN(
      const text::SearchScores scores,
      text::EvaluateSearch(op, *serving->full_text, *serving->definition.full_text, interrupt));
  matches.heap_.reserve(scores.size());
  for (const auto& [label, score] : scores) {
    if (label >= serving->document_of.size() || serving->document_of[label] == Built::kNoDocument) {
      continue;
    }
    std::uint32_t key = 0;
    if (sort != nullptr) {
      key = static_cast<std::uint32_t>(matches.keys_.size());
      matches.keys_.push_back(text::SortKeyOf(*sort, *serving->full_text, label));
    }
    matches.heap_.push_back({.label = label, .score = score, .key = key});
  }
  matches.sort_ = std::move(sort);
  std::make_heap(matches.heap_.begin(), matches.heap_.end(),
                 [&](const auto& a, const auto& b) { return matches.RanksBelow(a, b); });
  matches.matched_ = matches.heap_.size();
  matches.built_ = std::move(serving);
  return matches;
}

bool SearchIndexRegistry::TextMatches::RanksBelow(const Ranked& a, const Ranked& b) const {
  if (sort_ != nullptr) {
    const int c =
        text::CompareSortKeys(*sort_, keys_[a.key].view(), a.score, keys_[b.key].view(), b.score);
    if (c != 0) return c > 0;
  } else if (a.score != b.score) {
    return a.score < b.score;
  }
  return a.label > b.label;  // the older label first
}

std::vector<SearchMatch> SearchIndexRegistry::TextMatches::Next(std::size_t max) {
  std::vector<SearchMatch> out;
  if (built_ == nullptr) return out;
  std::shared_lock lock(built_->mu);
  auto below = [this](const Ranked& a, const Ranked& b) { return RanksBelow(a, b); };
  while (out.size() < max && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), below);
    const Ranked next = heap_.back();
    heap_.pop_back();
    const std::uint32_t slot = built_->document_of[next.label];
    if (slot == Built::kNoDocument) continue;  // deleted since the search
    // The id key is all $search reads: it fetches every document anyway.
    out.push_back(
        {.id_key = std::string(built_->id_keys.Get(slot)), .score = next.score, .id_document = {}});
  }
  return out;
}

StatusWith<SearchIndexRegistry::FacetCounts> SearchIndexRegistry::CountFacets(
    storage::CollectionId collection, const std::string& index_id, const text::SearchOperator* op,
    const std::vector<text::SearchFacet>& facets, const Interrupt* interrupt) const {
  std::shared_ptr<Built> serving = Serving(collection, index_id);
  if (serving == nullptr || serving->full_text == nullptr) {
    return FacetCounts{.matched = 0,
                       .facets = text::CountFacets(facets, text::InvertedIndex(), {})};
  }
  QUARRY_RETURN_IF_ERROR(text::CheckFacetsMapped(facets, *serving->definition.full_text));
  std::shared_lock lock(serving->mu);
  std::vector<std::uint32_t> labels;
  auto has_document = [&](std::uint32_t label) {
    return label < serving->document_of.size() && serving->document_of[label] != Built::kNoDocument;
  };
  if (op != nullptr) {
    QUARRY_ASSIGN_OR_RETURN(
        const text::SearchScores scores,
        text::EvaluateSearch(*op, *serving->full_text, *serving->definition.full_text, interrupt));
    labels.reserve(scores.size());
    for (const auto& [label, score] : scores) {
      if (has_document(label)) labels.push_back(label);
    }
  } else {
    for (std::uint32_t label = 0; label < serving->document_of.size(); ++label) {
      if (has_document(label)) labels.push_back(label);
    }
  }
  return FacetCounts{.matched = labels.size(),
                     .facets = text::CountFacets(facets, *serving->full_text, labels)};
}

}  // namespace quarry::vector
