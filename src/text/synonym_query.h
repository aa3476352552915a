// How Atlas's text operator searches one field with a synonym mapping. Without matchCriteria,
// the query's tokens must occur as a phrase in which synonyms may stand for any stretch (Lucene's
// TermAutomatonQuery: BM25 of the phrase's count, with the summed idf of every token the phrase
// may hold). With "any" or "all", Lucene's query builder over the synonym graph (a SynonymQuery
// where single tokens stand for each other, a dismax with tie breaker 0.1 over a stretch's
// alternatives when one is several tokens long), plus the query without synonyms boosted twice.
// The phrase operator quotes the same graph (ScorePhraseWithSynonyms).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "text/field_query.h"
#include "text/inverted_index.h"
#include "text/score_map.h"
#include "text/synonyms.h"

namespace quarry::text {

enum class SynonymMatch { kPhrase, kAny, kAll };

// Adds to `scores` the score of each label of `field` that `tokens` (a query's analyzed tokens)
// match with `synonyms` expanding them. `stopped(steps)` is asked as postings are read; true ends
// the scoring early.
// Errors: BadValue when the query's tokens form too large a graph.
Status ScoreWithSynonyms(const InvertedIndex::Field& field, const std::vector<QueryToken>& tokens,
                         const SynonymMap& synonyms, SynonymMatch match,
                         const std::function<bool(std::size_t steps)>& stopped, ScoreMap* scores);

// The phrase operator with a synonym mapping on one field: Lucene's quoted query over the
// synonym graph (a multi-phrase while every synonym is one token, else a phrase per path through
// the graph), beside the phrase without synonyms boosted twice once any synonym applies.
Status ScorePhraseWithSynonyms(const InvertedIndex::Field& field,
                               const std::vector<QueryToken>& tokens, const SynonymMap& synonyms,
                               std::uint32_t slop,
                               const std::function<bool(std::size_t steps)>& stopped,
                               ScoreMap* scores);

}  // namespace quarry::text
