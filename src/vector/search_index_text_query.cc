// SearchIndexRegistry's full-text queries: $search's matches, ranked as they are taken, and
// $searchMeta's facet counts.
#include <algorithm>

#include "vector/search_index_internal.h"
#include "vector/search_index_registry.h"

namespace quarry::vector {
namespace {

using Built = SearchIndexRegistry::Built;

// Whether the match ranked (a_key, a_score, a_label) comes after (b_key, b_score, b_label):
// by `sort`, or (null) by score, best first; ties by label, the older first.
bool RanksAfter(const text::SearchSort* sort, bson::DocumentView a_key, double a_score,
                std::uint32_t a_label, bson::DocumentView b_key, double b_score,
                std::uint32_t b_label) {
  if (sort != nullptr) {
    const int c = text::CompareSortKeys(*sort, a_key, a_score, b_key, b_score);
    if (c != 0) return c > 0;
  } else if (a_score != b_score) {
    return a_score < b_score;
  }
  return a_label > b_label;
}

// OK when `rank` was made under `sort`: as many key values as it has fields (none by score).
Status CheckRankFits(const TextRank& rank, const text::SearchSort* sort) {
  std::size_t values = 0;
  for (auto it = rank.key.view().begin(); it != rank.key.view().end(); ++it) ++values;
  if (values != (sort != nullptr ? sort->fields.size() : 0)) {
    return Status(ErrorCode::kBadValue,
                  "the searchAfter or searchBefore token comes from a search with another sort");
  }
  return Status::OK();
}

// The synonym mappings `reader` reads for `serving`'s mapping; none without a reader. Read
// before the index's lock is taken: the sources are other collections.
StatusWith<text::SynonymMaps> SynonymsFor(const Built& serving,
                                          const SearchIndexRegistry::SynonymReader* reader) {
  if (reader == nullptr) return text::SynonymMaps();
  return (*reader)(*serving.definition.full_text);
}

}  // namespace

StatusWith<SearchIndexRegistry::TextMatches> SearchIndexRegistry::SearchText(
    storage::CollectionId collection, const std::string& index_id, const text::SearchOperator& op,
    TextOrder order, const Interrupt* interrupt, const SynonymReader* synonyms) const {
  TextMatches matches;
  const text::SearchSort* sort = order.sort.get();
  for (const std::optional<TextRank>* rank : {&order.after, &order.before}) {
    if (rank->has_value()) QUARRY_RETURN_IF_ERROR(CheckRankFits(**rank, sort));
  }
  std::shared_ptr<Built> serving = Serving(collection, index_id);
  if (serving == nullptr || serving->full_text == nullptr) return matches;
  QUARRY_ASSIGN_OR_RETURN(const text::SynonymMaps synonym_maps, SynonymsFor(*serving, synonyms));
  std::shared_lock lock(serving->mu);
  QUARRY_ASSIGN_OR_RETURN(
      const text::SearchScores scores,
      text::EvaluateSearch(op, *serving->full_text, *serving->definition.full_text, interrupt,
                           &synonym_maps));
  matches.heap_.reserve(scores.size());
  for (const auto& [label, score] : scores) {
    if (label >= serving->document_of.size() || serving->document_of[label] == Built::kNoDocument) {
      continue;
    }
    const auto key_index = static_cast<std::uint32_t>(matches.keys_.size());
    // Ranked by score alone, a match needs no key.
    if (sort != nullptr || order.after.has_value() || order.before.has_value()) {
      bson::Document key;
      if (sort != nullptr) key = text::SortKeyOf(*sort, *serving->full_text, label);
      if (order.after.has_value() &&
          !RanksAfter(sort, key.view(), score, label, order.after->key.view(), order.after->score,
                      order.after->label)) {
        continue;
      }
      if (order.before.has_value() &&
          !RanksAfter(sort, order.before->key.view(), order.before->score, order.before->label,
                      key.view(), score, label)) {
        continue;
      }
      if (sort != nullptr) matches.keys_.push_back(std::move(key));
    }
    matches.heap_.push_back({.label = label, .score = score, .key = key_index});
  }
  matches.sort_ = std::move(order.sort);
  matches.reverse_ = order.before.has_value();
  std::make_heap(matches.heap_.begin(), matches.heap_.end(),
                 [&](const auto& a, const auto& b) { return matches.RanksBelow(a, b); });
  matches.matched_ = matches.heap_.size();
  matches.built_ = std::move(serving);
  return matches;
}

bool SearchIndexRegistry::TextMatches::RanksBelow(const Ranked& a, const Ranked& b) const {
  const Ranked& later = reverse_ ? b : a;
  const Ranked& earlier = reverse_ ? a : b;
  return RanksAfter(sort_.get(), KeyOf(later), later.score, later.label, KeyOf(earlier),
                    earlier.score, earlier.label);
}

std::vector<TextMatch> SearchIndexRegistry::TextMatches::Next(std::size_t max) {
  std::vector<TextMatch> out;
  if (built_ == nullptr) return out;
  std::shared_lock lock(built_->mu);
  auto below = [this](const Ranked& a, const Ranked& b) { return RanksBelow(a, b); };
  while (out.size() < max && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), below);
    const Ranked next = heap_.back();
    heap_.pop_back();
    const std::uint32_t slot = built_->document_of[next.label];
    if (slot == Built::kNoDocument) continue;  // deleted since the search
    out.push_back(
        {.id_key = std::string(built_->id_keys.Get(slot)),
         .rank = {
             .key = bson::Document::Copy(KeyOf(next)), .score = next.score, .label = next.label}});
  }
  return out;
}

StatusWith<SearchIndexRegistry::FacetCounts> SearchIndexRegistry::CountFacets(
    storage::CollectionId collection, const std::string& index_id, const text::SearchOperator* op,
    const std::vector<text::SearchFacet>& facets, const Interrupt* interrupt,
    const SynonymReader* synonyms) const {
  std::shared_ptr<Built> serving = Serving(collection, index_id);
  if (serving == nullptr || serving->full_text == nullptr) {
    return FacetCounts{.matched = 0, .facets = text::EmptyFacets(facets)};
  }
  QUARRY_RETURN_IF_ERROR(text::CheckFacetsMapped(facets, *serving->definition.full_text));
  QUARRY_ASSIGN_OR_RETURN(const text::SynonymMaps synonym_maps, SynonymsFor(*serving, synonyms));
  std::shared_lock lock(serving->mu);
  std::vector<std::uint32_t> labels;
  auto has_document = [&](std::uint32_t label) {
    return label < serving->document_of.size() && serving->document_of[label] != Built::kNoDocument;
  };
  if (op != nullptr) {
    QUARRY_ASSIGN_OR_RETURN(
        const text::SearchScores scores,
        text::EvaluateSearch(*op, *serving->full_text, *serving->definition.full_text, interrupt,
                             &synonym_maps));
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
