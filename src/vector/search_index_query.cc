// SearchIndexRegistry::Search: a plain index answers its graph's hits; a nested one groups the
// hits of its elements by parent and scores each parent by its best or average element.
#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "vector/search_index_internal.h"
#include "vector/search_index_registry.h"
#include "vector/vector_index.h"

namespace quarry::vector {
namespace {

using Built = SearchIndexRegistry::Built;

struct ParentScore {
  std::uint32_t slot;
  double best = 0;
  double sum = 0;
  std::size_t elements = 0;
};

// The parents of `hits` in the order of their best element (hits come best first).
std::vector<ParentScore> GroupByParent(const Built& built,
                                       const std::vector<VectorIndex::Hit>& hits) {
  std::vector<ParentScore> parents;
  std::unordered_map<std::uint32_t, std::size_t> position;
  for (const VectorIndex::Hit& hit : hits) {
    const std::uint32_t slot = built.document_of[hit.label];
    auto [it, inserted] = position.emplace(slot, parents.size());
    if (inserted) parents.push_back({slot, hit.score, 0, 0});
    ParentScore& parent = parents[it->second];
    parent.sum += hit.score;
    ++parent.elements;
  }
  return parents;
}

// The labels the query's filter may admit, from the filter fields' postings; nullopt without a
// filter, or when it does not narrow them to few enough for `graph` to scan.
std::optional<std::vector<std::uint32_t>> FilterCandidates(const Built& built,
                                                           const VectorIndex& graph,
                                                           const VectorQuery& query, bool exact) {
  if (query.filter == nullptr) return std::nullopt;
  const std::size_t max = exact ? built.filter_values.size()
                                : graph.MaxScannedCandidates(query.num_candidates, query.limit);
  return built.filter_values.Candidates(query.filter_document, max);
}

const std::vector<std::uint32_t>* OrNull(const std::optional<std::vector<std::uint32_t>>& labels) {
  return labels.has_value() ? &*labels : nullptr;
}

// Element hits until `wanted` parents are among them or every admitted element is.
StatusWith<std::vector<VectorIndex::Hit>> HitsForParents(const VectorIndex& graph,
                                                         const Built& built,
                                                         const VectorQuery& query,
                                                         const VectorIndex::Filter& admits,
                                                         bool exact, std::size_t wanted) {
  const std::optional<std::vector<std::uint32_t>> candidates =
      FilterCandidates(built, graph, query, exact);
  const std::size_t labels = std::max<std::size_t>(built.document_of.size(), 1);
  std::size_t k = std::min(std::max(query.limit, query.num_candidates), labels);
  for (;;) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<VectorIndex::Hit> hits,
                            graph.Search(query.vector, k, std::max(k, query.num_candidates),
                                         &admits, exact, OrNull(candidates)));
    if (hits.size() < k || k >= labels) return hits;
    std::unordered_set<std::uint32_t> parents;
    for (const VectorIndex::Hit& hit : hits) parents.insert(built.document_of[hit.label]);
    if (parents.size() >= wanted) return hits;
    k = std::min(k * 2, labels);
  }
}

SearchMatch MatchOf(const Built& built, std::uint32_t slot, double score) {
  return {.id_key = std::string(built.id_keys.Get(slot)),
          .score = score,
          .id_document = bson::Document::Copy(built.id_documents.Document(slot))};
}

StatusWith<std::vector<SearchMatch>> SearchNested(const VectorIndex& graph, const Built& built,
                                                  const VectorQuery& query, bool exact) {
  VectorIndex::Filter admits = [&](std::uint64_t label) {
    if (label >= built.document_of.size()) return false;
    const std::uint32_t slot = built.document_of[label];
    if (slot == Built::kNoDocument) return false;
    if (query.filter != nullptr && !query.filter->Matches(built.filter_values.Document(label))) {
      return false;
    }
    return query.parent_filter == nullptr ||
           query.parent_filter->Matches(built.parent_filter_values.Document(slot));
  };
  std::vector<ParentScore> parents;
  if (!query.average_score) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<VectorIndex::Hit> hits,
                            HitsForParents(graph, built, query, admits, exact, query.limit));
    parents = GroupByParent(built, hits);
  } else {
    // The candidates are the parents of the nearest elements; each is then scored over all of
    // its admitted elements, which one exact scan of only theirs gives.
    std::size_t wanted = exact ? built.documents.size() : query.num_candidates;
    QUARRY_ASSIGN_OR_RETURN(std::vector<VectorIndex::Hit> hits,
                            HitsForParents(graph, built, query, admits, exact, wanted));
    std::unordered_set<std::uint32_t> candidates;
    std::size_t their_labels = 0;
    for (const VectorIndex::Hit& hit : hits) {
      const std::uint32_t slot = built.document_of[hit.label];
      if (candidates.size() < wanted && candidates.insert(slot).second) {
        their_labels += built.documents[slot].labels;
      }
    }
    VectorIndex::Filter theirs = [&](std::uint64_t label) {
      return admits(label) && candidates.contains(built.document_of[label]);
    };
    std::vector<std::uint32_t> labels;  // the candidates' elements: all that can score them
    labels.reserve(their_labels);
    for (const std::uint32_t slot : candidates) {
      const Built::IndexedDocument& document = built.documents[slot];
      for (std::uint32_t i = 0; i < document.labels; ++i) {
        labels.push_back(static_cast<std::uint32_t>(document.first_label + i));
      }
    }
    std::sort(labels.begin(), labels.end());
    QUARRY_ASSIGN_OR_RETURN(std::vector<VectorIndex::Hit> all,
                            graph.Search(query.vector, std::max<std::size_t>(their_labels, 1),
                                         their_labels, &theirs, /*exact=*/true, &labels));
    parents = GroupByParent(built, all);
    for (ParentScore& parent : parents) parent.best = parent.sum / parent.elements;
    std::stable_sort(parents.begin(), parents.end(),
                     [](const ParentScore& a, const ParentScore& b) { return a.best > b.best; });
  }
  std::vector<SearchMatch> matches;
  for (const ParentScore& parent : parents) {
    if (matches.size() == query.limit) break;
    matches.push_back(MatchOf(built, parent.slot, parent.best));
  }
  return matches;
}

}  // namespace

StatusWith<std::vector<SearchMatch>> SearchIndexRegistry::Search(storage::CollectionId collection,
                                                                 const VectorQuery& query) const {
  std::shared_ptr<Built> serving = Serving(collection, query.index_id);
  if (serving == nullptr) return std::vector<SearchMatch>();
  std::shared_lock lock(serving->mu);
  const auto& graphs = query.packed_bits ? serving->bit_graphs : serving->graphs;
  auto graph = graphs.find(query.path);
  if (graph == graphs.end()) return std::vector<SearchMatch>();
  const VectorFieldDefinition* field = serving->definition.FindVector(query.path);
  const bool exact = query.exact || (field != nullptr && field->exact_only);
  if (!serving->definition.nested_root.empty()) {
    return SearchNested(*graph->second, *serving, query, exact);
  }
  VectorIndex::Filter admits = [&](std::uint64_t label) {
    return label < serving->filter_values.size() &&
           query.filter->Matches(serving->filter_values.Document(label));
  };
  const std::optional<std::vector<std::uint32_t>> candidates =
      FilterCandidates(*serving, *graph->second, query, exact);
  QUARRY_ASSIGN_OR_RETURN(std::vector<VectorIndex::Hit> hits,
                          graph->second->Search(query.vector, query.limit, query.num_candidates,
                                                query.filter != nullptr ? &admits : nullptr, exact,
                                                OrNull(candidates)));
  std::vector<SearchMatch> matches;
  matches.reserve(hits.size());
  for (const VectorIndex::Hit& hit : hits) {
    if (hit.label >= serving->document_of.size()) continue;
    const std::uint32_t slot = serving->document_of[hit.label];
    if (slot == Built::kNoDocument) continue;
    matches.push_back(MatchOf(*serving, slot, hit.score));
  }
  return matches;
}

std::shared_ptr<Built> SearchIndexRegistry::Serving(storage::CollectionId collection,
                                                    const std::string& index_id) const {
  std::shared_lock lock(mu_);
  auto it = indexes_.find(collection);
  if (it == indexes_.end()) return nullptr;
  auto entry = it->second.find(index_id);
  return entry != it->second.end() ? entry->second->serving : nullptr;
}

}  // namespace quarry::vector
