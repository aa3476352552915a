// The Lucene queries a search runs over one field's terms, and their BM25 scores: what Lucene's
// QueryBuilder makes of a query text's tokens (a term; a SynonymQuery where tokens share a
// position; a boolean over positions; a phrase, or a multi-phrase where a position holds
// several terms; for a token graph, a query per path through it), and the dismax and boost
// synonyms add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "text/inverted_index.h"
#include "text/score_map.h"
#include "text/search_analyzer.h"

namespace quarry::text {

struct FieldQuery {
  enum class Kind { kTerm, kSynonym, kPhrase, kShould, kMust, kDismax, kBoost };
  // A phrase's terms at one of its positions (several: any of them, as MultiPhraseQuery).
  struct Slot {
    std::vector<std::string> terms;
    std::uint32_t position = 0;
  };

  Kind kind = Kind::kTerm;
  std::vector<std::string> terms;   // term: one; synonym: each (a repeated term counts again)
  std::vector<Slot> slots;          // phrase, in position order
  std::uint32_t slop = 0;           // phrase
  std::vector<FieldQuery> clauses;  // should, must, dismax; boost: one
  double factor = 1;                // dismax: the tie breaker; boost: the factor

  static FieldQuery Term(std::string term);
  static FieldQuery Synonym(std::vector<std::string> terms);
  // The terms one position after another.
  static FieldQuery Phrase(const std::vector<std::string>& terms);
  static FieldQuery Combined(Kind kind, std::vector<FieldQuery> clauses, double factor = 1);
};

// Lucene's QueryBuilder.createFieldQuery over `tokens` (in stream order): `all` joins positions
// with MUST rather than SHOULD; `quoted` makes a phrase with `slop`. None when there is no token;
// BadValue when a token graph has more paths than a boolean query may have clauses.
StatusWith<std::optional<FieldQuery>> BuildFieldQuery(const std::vector<QueryToken>& tokens,
                                                      bool all, bool quoted, std::uint32_t slop);

// Adds to `scores` the score of each label of `field` that `query` matches. `stopped(steps)` is
// asked as postings are read; true ends the scoring early.
void ScoreFieldQuery(const InvertedIndex::Field& field, const FieldQuery& query,
                     const std::function<bool(std::size_t steps)>& stopped, ScoreMap* scores);

}  // namespace quarry::text
