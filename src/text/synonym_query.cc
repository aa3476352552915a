#include "text/synonym_query.h"

#include <algorithm>
#include <set>
#include <utility>

namespace quarry::text {
namespace {

using Field = InvertedIndex::Field;
using Postings = InvertedIndex::Postings;

// The tie breaker Atlas gives the dismax over a stretch's alternatives, and the boost of the
// query without synonyms beside the one with them.
constexpr double kAlternativesTieBreaker = 0.1;
constexpr double kExactMatchBoost = 2;

// The few Lucene queries a text search with synonyms is made of.
struct Query {
  enum class Kind { kTerm, kSynonym, kPhrase, kShould, kMust, kDismax, kBoost };
  Kind kind = Kind::kTerm;
  std::vector<std::string> terms;  // term: one; synonym: each (repeats count); phrase: in order
  std::vector<Query> clauses;      // should, must, dismax; boost: one
  double factor = 1;               // dismax: the tie breaker; boost: the factor
};

Query OfTerms(Query::Kind kind, std::vector<std::string> terms) {
  Query query;
  query.kind = kind;
  query.terms = std::move(terms);
  return query;
}

Query Term(std::string term) { return OfTerms(Query::Kind::kTerm, {std::move(term)}); }

Query OfPath(const TokenSequence& path) {
  return path.size() == 1 ? Term(path.front()) : OfTerms(Query::Kind::kPhrase, path);
}

Query Combined(Query::Kind kind, std::vector<Query> clauses, double factor = 1) {
  Query query;
  query.kind = kind;
  query.clauses = std::move(clauses);
  query.factor = factor;
  return query;
}

class Evaluator {
 public:
  Evaluator(const Field& field, const std::function<bool(std::size_t)>& stopped)
      : field_(field), stopped_(stopped) {}

  ScoreMap Run(const Query& query) {
    ScoreMap out;
    switch (query.kind) {
      case Query::Kind::kTerm:
      case Query::Kind::kSynonym:
        Terms(query.terms, &out);
        break;
      case Query::Kind::kPhrase:
        Phrase(query.terms, &out);
        break;
      case Query::Kind::kShould:
        for (const Query& clause : query.clauses) {
          for (const auto& [label, score] : Run(clause)) out[label] += score;
        }
        break;
      case Query::Kind::kMust:
        Must(query.clauses, &out);
        break;
      case Query::Kind::kDismax:
        Dismax(query, &out);
        break;
      case Query::Kind::kBoost:
        out = Run(query.clauses.front());
        for (auto& [label, score] : out) score *= query.factor;
        break;
    }
    return out;
  }

  bool Stopped() { return stopped_(++steps_); }

 private:
  // A term, or (several) Lucene's SynonymQuery: one pseudo-term whose frequency in a label is
  // the sum of its terms' (a repeated term counts again) and whose document frequency is the
  // largest of theirs.
  void Terms(const std::vector<std::string>& terms, ScoreMap* out) {
    std::size_t df = 0;
    std::vector<const Postings*> found;
    for (const std::string& term : terms) {
      auto it = field_.terms.find(term);
      if (it == field_.terms.end()) continue;
      found.push_back(&it->second);
      df = std::max(df, it->second.size());
    }
    if (found.empty()) return;
    ScoreMap frequency;
    for (const Postings* postings : found) {
      for (const auto& [label, positions] : *postings) {
        if (Stopped()) return;
        frequency[label] += static_cast<double>(positions.size());
      }
    }
    const double idf = field_.Idf(df);
    for (const auto& [label, tf] : frequency) (*out)[label] = field_.Score(label, tf, idf);
  }

  // An exact phrase: BM25 of its occurrences with its terms' summed idf.
  void Phrase(const std::vector<std::string>& terms, ScoreMap* out) {
    std::vector<const Postings*> postings;
    double idf = 0;
    for (const std::string& term : terms) {
      auto it = field_.terms.find(term);
      if (it == field_.terms.end()) return;
      postings.push_back(&it->second);
      idf += field_.Idf(it->second.size());
    }
    for (const auto& [label, first] : *postings.front()) {
      if (Stopped()) return;
      double frequency = 0;
      for (const std::uint32_t start : first) {
        bool whole = true;
        for (std::size_t i = 1; i < postings.size() && whole; ++i) {
          const Positions* at = postings[i]->Find(label);
          whole = at != nullptr &&
                  std::binary_search(at->begin(), at->end(), start + static_cast<std::uint32_t>(i));
        }
        if (whole) frequency += 1;
      }
      if (frequency > 0) (*out)[label] = field_.Score(label, frequency, idf);
    }
  }

  void Must(const std::vector<Query>& clauses, ScoreMap* out) {
    bool first = true;
    for (const Query& clause : clauses) {
      ScoreMap scores = Run(clause);
      if (first) {
        *out = std::move(scores);
        first = false;
        continue;
      }
      out->EraseIf([&](const auto& entry) { return !scores.contains(entry.first); });
      for (auto& [label, score] : *out) score += scores.at(label);
    }
  }

  // Lucene's DisjunctionMaxQuery: the best clause's score plus the tie breaker times the others'.
  void Dismax(const Query& query, ScoreMap* out) {
    ScoreMap best;
    for (const Query& clause : query.clauses) {
      for (const auto& [label, score] : Run(clause)) {
        (*out)[label] += score;
        best[label] = std::max(best[label], score);
      }
    }
    for (auto& [label, sum] : *out) {
      const double top = best.at(label);
      sum = top + query.factor * (sum - top);
    }
  }

  const Field& field_;
  const std::function<bool(std::size_t)>& stopped_;
  std::size_t steps_ = 0;
};

// What Lucene's QueryBuilder makes of the synonym graph of `segments`: per stretch a term, a
// SynonymQuery of stacked single tokens, or (once any alternative is several tokens long) a
// dismax over the stretch's alternatives, joined by `occur`.
Query WithSynonyms(const std::vector<SynonymSegment>& segments, Query::Kind occur) {
  const bool graph = std::any_of(segments.begin(), segments.end(), [](const SynonymSegment& s) {
    return std::any_of(s.paths.begin(), s.paths.end(),
                       [](const TokenSequence& path) { return path.size() != 1; });
  });
  std::vector<Query> clauses;
  for (const SynonymSegment& segment : segments) {
    const bool multi_token =
        std::any_of(segment.paths.begin(), segment.paths.end(),
                    [](const TokenSequence& path) { return path.size() != 1; });
    if (segment.paths.size() == 1 && !multi_token) {
      clauses.push_back(Term(segment.paths.front().front()));
    } else if (!multi_token) {
      std::vector<std::string> stacked;
      for (const TokenSequence& path : segment.paths) stacked.push_back(path.front());
      clauses.push_back(OfTerms(Query::Kind::kSynonym, std::move(stacked)));
    } else {
      std::vector<Query> alternatives;
      for (const TokenSequence& path : segment.paths) alternatives.push_back(OfPath(path));
      clauses.push_back(
          Combined(Query::Kind::kDismax, std::move(alternatives), kAlternativesTieBreaker));
    }
  }
  if (!graph && clauses.size() == 1) return std::move(clauses.front());
  return Combined(occur, std::move(clauses));
}

// The query text as a phrase in which any stretch may be one of its synonyms: the number of
// times it occurs in `label`, counting each start and end once however many alternatives
// spell it.
double AutomatonFrequency(const std::vector<std::vector<TokenSequence>>& stretches,
                          const std::function<const Positions*(const std::string&)>& positions) {
  std::set<std::uint32_t> starts;
  for (const TokenSequence& path : stretches.front()) {
    if (const Positions* at = positions(path.front())) starts.insert(at->begin(), at->end());
  }
  auto holds = [&](const std::string& term, std::uint32_t position) {
    const Positions* at = positions(term);
    return at != nullptr && std::binary_search(at->begin(), at->end(), position);
  };
  double frequency = 0;
  for (const std::uint32_t start : starts) {
    std::set<std::uint32_t> reached = {start};
    for (const std::vector<TokenSequence>& alternatives : stretches) {
      std::set<std::uint32_t> next;
      for (const std::uint32_t at : reached) {
        for (const TokenSequence& path : alternatives) {
          bool whole = true;
          for (std::size_t i = 0; i < path.size() && whole; ++i) {
            whole = holds(path[i], at + static_cast<std::uint32_t>(i));
          }
          if (whole) next.insert(at + static_cast<std::uint32_t>(path.size()));
        }
      }
      reached = std::move(next);
      if (reached.empty()) break;
    }
    frequency += static_cast<double>(reached.size());
  }
  return frequency;
}

void ScoreAsAutomaton(const Field& field, const std::vector<SynonymSegment>& segments,
                      Evaluator& evaluator, ScoreMap* scores) {
  // Each stretch's alternatives once: Lucene determinizes the automaton they make.
  std::vector<std::vector<TokenSequence>> stretches;
  std::set<std::string> terms;
  for (const SynonymSegment& segment : segments) {
    std::vector<TokenSequence> alternatives;
    for (const TokenSequence& path : segment.paths) {
      if (std::find(alternatives.begin(), alternatives.end(), path) == alternatives.end()) {
        alternatives.push_back(path);
      }
      terms.insert(path.begin(), path.end());
    }
    stretches.push_back(std::move(alternatives));
  }
  double idf = 0;
  std::map<std::string_view, const Postings*> postings;
  for (const std::string& term : terms) {
    auto it = field.terms.find(term);
    if (it == field.terms.end()) continue;
    postings[term] = &it->second;
    idf += field.Idf(it->second.size());
  }
  std::set<std::uint32_t> candidates;
  for (const TokenSequence& path : stretches.front()) {
    auto it = postings.find(path.front());
    if (it == postings.end()) continue;
    for (const auto& [label, positions] : *it->second) candidates.insert(label);
  }
  for (const std::uint32_t label : candidates) {
    if (evaluator.Stopped()) return;
    const double frequency = AutomatonFrequency(stretches, [&](const std::string& term) {
      auto it = postings.find(term);
      return it != postings.end() ? it->second->Find(label) : nullptr;
    });
    if (frequency > 0) (*scores)[label] += field.Score(label, frequency, idf);
  }
}

}  // namespace

void ScoreWithSynonyms(const InvertedIndex::Field& field, const std::vector<std::string>& tokens,
                       const SynonymMap& synonyms, SynonymMatch match,
                       const std::function<bool(std::size_t steps)>& stopped, ScoreMap* scores) {
  if (tokens.empty()) return;
  Evaluator evaluator(field, stopped);
  const std::vector<SynonymSegment> segments = synonyms.Expand(tokens);
  if (match == SynonymMatch::kPhrase) {
    ScoreAsAutomaton(field, segments, evaluator, scores);
    return;
  }
  const Query::Kind occur = match == SynonymMatch::kAll ? Query::Kind::kMust : Query::Kind::kShould;
  Query query = WithSynonyms(segments, occur);
  if (query.kind != Query::Kind::kTerm && query.kind != Query::Kind::kPhrase) {
    // Documents the query would match without synonyms rank above those only a synonym finds.
    std::vector<Query> exact;
    for (const std::string& token : tokens) exact.push_back(Term(token));
    Query original =
        exact.size() == 1 ? std::move(exact.front()) : Combined(occur, std::move(exact));
    query = Combined(
        Query::Kind::kShould,
        {std::move(query), Combined(Query::Kind::kBoost, {std::move(original)}, kExactMatchBoost)});
  }
  for (const auto& [label, score] : evaluator.Run(query)) (*scores)[label] += score;
}

}  // namespace quarry::text
