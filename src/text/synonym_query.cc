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

FieldQuery OfPath(const TokenSequence& path) {
  return path.size() == 1 ? FieldQuery::Term(path.front()) : FieldQuery::Phrase(path);
}

// Whether an alternative of `segment` is other than one token: the synonyms make a graph.
bool MultiToken(const SynonymSegment& segment) {
  return std::any_of(segment.paths.begin(), segment.paths.end(),
                     [](const TokenSequence& path) { return path.size() != 1; });
}

// What Lucene's QueryBuilder makes of the synonym graph of `segments`: per stretch a term, a
// SynonymQuery of stacked single tokens, or (once any alternative is several tokens long) a
// dismax over the stretch's alternatives, joined by `occur`.
FieldQuery WithSynonyms(const std::vector<SynonymSegment>& segments, FieldQuery::Kind occur) {
  const bool graph = std::any_of(segments.begin(), segments.end(), MultiToken);
  std::vector<FieldQuery> clauses;
  for (const SynonymSegment& segment : segments) {
    const bool multi_token = MultiToken(segment);
    if (segment.paths.size() == 1 && !multi_token) {
      clauses.push_back(FieldQuery::Term(segment.paths.front().front()));
    } else if (!multi_token) {
      std::vector<std::string> stacked;
      for (const TokenSequence& path : segment.paths) stacked.push_back(path.front());
      clauses.push_back(FieldQuery::Synonym(std::move(stacked)));
    } else {
      std::vector<FieldQuery> alternatives;
      for (const TokenSequence& path : segment.paths) alternatives.push_back(OfPath(path));
      clauses.push_back(FieldQuery::Combined(FieldQuery::Kind::kDismax, std::move(alternatives),
                                             kAlternativesTieBreaker));
    }
  }
  if (!graph && clauses.size() == 1) return std::move(clauses.front());
  return FieldQuery::Combined(occur, std::move(clauses));
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
                      const std::function<bool(std::size_t)>& stopped, ScoreMap* scores) {
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
  std::size_t steps = 0;
  for (const std::uint32_t label : candidates) {
    if (stopped(++steps)) return;
    const double frequency = AutomatonFrequency(stretches, [&](const std::string& term) {
      auto it = postings.find(term);
      return it != postings.end() ? it->second->Find(label) : nullptr;
    });
    if (frequency > 0) (*scores)[label] += field.Score(label, frequency, idf);
  }
}

std::vector<std::string> TermsOf(const std::vector<QueryToken>& tokens) {
  std::vector<std::string> terms;
  for (const QueryToken& token : tokens) terms.push_back(token.term);
  return terms;
}

// `query` with the query the tokens make without synonyms beside it, boosted twice: documents
// the query would match without synonyms rank above those only a synonym finds (Atlas's
// boost of the exact match).
StatusWith<FieldQuery> BesideExactMatch(FieldQuery query, const std::vector<QueryToken>& tokens,
                                        bool all, bool quoted, std::uint32_t slop) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<FieldQuery> original,
                          BuildFieldQuery(tokens, all, quoted, slop));
  std::vector<FieldQuery> both;
  both.push_back(std::move(query));
  if (original.has_value()) {
    both.push_back(
        FieldQuery::Combined(FieldQuery::Kind::kBoost, {std::move(*original)}, kExactMatchBoost));
  }
  return FieldQuery::Combined(FieldQuery::Kind::kShould, std::move(both));
}

}  // namespace

Status ScoreWithSynonyms(const InvertedIndex::Field& field, const std::vector<QueryToken>& tokens,
                         const SynonymMap& synonyms, SynonymMatch match,
                         const std::function<bool(std::size_t steps)>& stopped, ScoreMap* scores) {
  if (tokens.empty()) return Status::OK();
  const std::vector<SynonymSegment> segments = synonyms.Expand(TermsOf(tokens));
  if (match == SynonymMatch::kPhrase) {
    ScoreAsAutomaton(field, segments, stopped, scores);
    return Status::OK();
  }
  const bool all = match == SynonymMatch::kAll;
  FieldQuery query =
      WithSynonyms(segments, all ? FieldQuery::Kind::kMust : FieldQuery::Kind::kShould);
  if (query.kind != FieldQuery::Kind::kTerm && query.kind != FieldQuery::Kind::kPhrase) {
    QUARRY_ASSIGN_OR_RETURN(query, BesideExactMatch(std::move(query), tokens, all, false, 0));
  }
  ScoreFieldQuery(field, query, stopped, scores);
  return Status::OK();
}

namespace {

// The phrase the synonym graph of `segments` makes, as Lucene's QueryBuilder quotes it: a
// multi-phrase (or, at one position, a SynonymQuery) while every alternative is one token,
// else a phrase per path through the graph. `positions` gives each original token's.
StatusWith<FieldQuery> SynonymPhrase(const std::vector<SynonymSegment>& segments,
                                     const std::vector<QueryToken>& tokens, std::uint32_t slop,
                                     bool* plain) {
  *plain = false;
  const bool graph = std::any_of(segments.begin(), segments.end(), MultiToken);
  if (!graph) {
    // Every segment stands for one token of the query.
    std::vector<FieldQuery::Slot> slots;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      FieldQuery::Slot slot{{}, tokens[i].position};
      for (const TokenSequence& path : segments[i].paths) slot.terms.push_back(path.front());
      slots.push_back(std::move(slot));
    }
    if (slots.size() == 1) {
      *plain = slots.front().terms.size() == 1;
      return *plain ? FieldQuery::Term(slots.front().terms.front())
                    : FieldQuery::Synonym(std::move(slots.front().terms));
    }
    *plain = std::all_of(slots.begin(), slots.end(),
                         [](const FieldQuery::Slot& slot) { return slot.terms.size() == 1; });
    FieldQuery phrase;
    phrase.kind = FieldQuery::Kind::kPhrase;
    phrase.slots = std::move(slots);
    phrase.slop = slop;
    return phrase;
  }
  // Every path from start to end, a phrase (or a term) of its own.
  std::vector<std::vector<QueryToken>> paths = {{}};
  std::size_t original = 0;  // the query token each segment starts at
  for (const SynonymSegment& segment : segments) {
    const std::uint32_t start = tokens[original].position;
    const std::int64_t before = original == 0 ? -1 : tokens[original - 1].position;
    const auto increment = static_cast<std::uint32_t>(start - before);
    std::vector<std::vector<QueryToken>> longer;
    for (const std::vector<QueryToken>& prefix : paths) {
      const std::uint32_t at = prefix.empty() ? 0 : prefix.back().position + 1;
      for (const TokenSequence& alternative : segment.paths) {
        std::vector<QueryToken> path = prefix;
        for (std::size_t k = 0; k < alternative.size(); ++k) {
          path.push_back({alternative[k],
                          at + (k == 0 ? increment - 1 : 0) + static_cast<std::uint32_t>(k), 1});
        }
        longer.push_back(std::move(path));
        if (longer.size() > 1024) {
          return Status(ErrorCode::kBadValue,
                        "the query's synonyms make more than 1024 phrases (Lucene's limit on a "
                        "boolean query's clauses)");
        }
      }
    }
    paths = std::move(longer);
    original += segment.paths.front().size();
  }
  std::vector<FieldQuery> phrases;
  for (const std::vector<QueryToken>& path : paths) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<FieldQuery> query,
                            BuildFieldQuery(path, true, true, slop));
    if (query.has_value()) phrases.push_back(std::move(*query));
  }
  return FieldQuery::Combined(FieldQuery::Kind::kShould, std::move(phrases));
}

}  // namespace

Status ScorePhraseWithSynonyms(const InvertedIndex::Field& field,
                               const std::vector<QueryToken>& tokens, const SynonymMap& synonyms,
                               std::uint32_t slop,
                               const std::function<bool(std::size_t steps)>& stopped,
                               ScoreMap* scores) {
  if (tokens.empty()) return Status::OK();
  bool plain = false;
  QUARRY_ASSIGN_OR_RETURN(FieldQuery query,
                          SynonymPhrase(synonyms.Expand(TermsOf(tokens)), tokens, slop, &plain));
  if (!plain) {
    QUARRY_ASSIGN_OR_RETURN(query, BesideExactMatch(std::move(query), tokens, true, true, slop));
  }
  ScoreFieldQuery(field, query, stopped, scores);
  return Status::OK();
}

}  // namespace quarry::text
