#include "text/field_query.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

namespace quarry::text {

FieldQuery FieldQuery::Term(std::string term) {
  FieldQuery query;
  query.terms.push_back(std::move(term));
  return query;
}

FieldQuery FieldQuery::Synonym(std::vector<std::string> terms) {
  FieldQuery query;
  query.kind = Kind::kSynonym;
  query.terms = std::move(terms);
  return query;
}

FieldQuery FieldQuery::Phrase(const std::vector<std::string>& terms) {
  FieldQuery query;
  query.kind = Kind::kPhrase;
  for (const std::string& term : terms) {
    query.slots.push_back({{term}, static_cast<std::uint32_t>(query.slots.size())});
  }
  return query;
}

FieldQuery FieldQuery::Combined(Kind kind, std::vector<FieldQuery> clauses, double factor) {
  FieldQuery query;
  query.kind = kind;
  query.clauses = std::move(clauses);
  query.factor = factor;
  return query;
}

namespace {

using Kind = FieldQuery::Kind;
using Field = InvertedIndex::Field;
using Postings = InvertedIndex::Postings;

// Lucene's limit on a boolean query's clauses, which the paths through a token graph meet first.
constexpr std::size_t kMaxGraphPaths = 1024;

// A token of the graph Lucene builds from a token stream: it leads from one state to another,
// states counting positions, and keeps the position increment a path through it shows.
struct Edge {
  std::size_t token;
  std::uint32_t from, to;
  std::uint32_t increment;
};

// The graph of `tokens` as Lucene's GraphTokenStreamFiniteStrings builds it, without the states
// no path to the last one passes: a gap left by a dropped token widens the token after it.
class TokenGraph {
 public:
  explicit TokenGraph(const std::vector<QueryToken>& tokens) : tokens_(tokens) {
    std::int64_t state = -1;  // where the current position starts
    std::uint32_t gap = 0, previous_increment = 1;
    std::int64_t previous_position = -1;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const auto increment =
          static_cast<std::uint32_t>(static_cast<std::int64_t>(tokens[i].position) -
                                     std::min<std::int64_t>(previous_position, tokens[i].position));
      previous_position = tokens[i].position;
      if (increment == 0) {
        state -= gap;
      } else {
        ++state;
        gap = increment - 1;
      }
      const auto from = static_cast<std::uint32_t>(state);
      const std::uint32_t to = from + std::max<std::uint32_t>(tokens[i].length, 1) + gap;
      edges_.push_back({i, from, to, increment == 0 ? previous_increment : increment});
      last_ = std::max(last_, to);
      state += gap;
      if (increment > 0) previous_increment = increment;
    }
    // States from which the last cannot be reached are dead, as are the edges into them.
    std::vector<std::vector<std::size_t>> leaving(last_ + 1);
    for (std::size_t e = 0; e < edges_.size(); ++e) leaving[edges_[e].from].push_back(e);
    std::vector<bool> live(last_ + 1, false);
    live[last_] = true;
    for (std::uint32_t s = last_; s-- > 0;) {
      live[s] = std::any_of(leaving[s].begin(), leaving[s].end(),
                            [&](std::size_t e) { return live[edges_[e].to]; });
    }
    std::erase_if(edges_, [&](const Edge& edge) { return !live[edge.from] || !live[edge.to]; });
    leaving_.assign(last_ + 1, {});
    for (std::size_t e = 0; e < edges_.size(); ++e) leaving_[edges_[e].from].push_back(e);
  }

  // The states every path passes (no token spans them), in order.
  std::vector<std::uint32_t> ArticulationPoints() const {
    // spans[s]: how many tokens start before s and end after it (a running sum of +1 at a
    // token's first inner state and -1 at its end).
    std::vector<std::int64_t> spans(last_ + 2, 0);
    std::vector<bool> reached(last_ + 1, false);
    for (const Edge& edge : edges_) {
      reached[edge.to] = true;
      if (edge.to > edge.from + 1) {
        ++spans[edge.from + 1];
        --spans[edge.to];
      }
    }
    std::vector<std::uint32_t> points;
    std::int64_t spanning = 0;
    for (std::uint32_t s = 0; s < last_; ++s) {
      spanning += spans[s];
      if (reached[s] && spanning == 0) points.push_back(s);
    }
    return points;
  }

  // Whether tokens from `state` lead to different states.
  bool HasSidePath(std::uint32_t state) const {
    const std::vector<std::size_t>& out = leaving_[state];
    return std::any_of(out.begin(), out.end(),
                       [&](std::size_t e) { return edges_[e].to != edges_[out.front()].to; });
  }

  std::vector<std::string> TermsFrom(std::uint32_t state) const {
    std::vector<std::string> terms;
    for (const std::size_t e : leaving_[state]) terms.push_back(tokens_[edges_[e].token].term);
    return terms;
  }

  // Each path from `from` to `to` (the last state when none) as a linear token stream; false
  // when there are more than Lucene's clause limit. Depth first, without recursion: a path may
  // be as long as the query.
  bool PathsBetween(std::uint32_t from, std::optional<std::uint32_t> to,
                    std::vector<std::vector<QueryToken>>* out) const {
    const std::uint32_t end = to.value_or(last_);
    struct Step {
      std::uint32_t state;
      std::size_t next = 0;  // the next of leaving_[state] to try
    };
    std::vector<Step> stack = {{from}};
    std::vector<const Edge*> path;
    while (!stack.empty()) {
      Step& step = stack.back();
      if (step.state == end) {
        if (out->size() == kMaxGraphPaths) return false;
        out->push_back(StreamOf(path));
      }
      const std::vector<std::size_t>& leaving = leaving_[step.state];
      while (step.state != end && step.next < leaving.size() &&
             edges_[leaving[step.next]].to > end) {
        ++step.next;
      }
      if (step.state == end || step.next == leaving.size()) {
        stack.pop_back();
        if (!path.empty()) path.pop_back();
        continue;
      }
      const Edge& edge = edges_[leaving[step.next++]];
      path.push_back(&edge);
      stack.push_back({edge.to});
    }
    return true;
  }

 private:
  std::vector<QueryToken> StreamOf(const std::vector<const Edge*>& path) const {
    std::vector<QueryToken> stream;
    std::uint32_t position = 0;
    for (const Edge* edge : path) {
      position += edge->increment;
      stream.push_back({tokens_[edge->token].term, position - 1, 1});
    }
    return stream;
  }

  const std::vector<QueryToken>& tokens_;
  std::vector<Edge> edges_;
  std::vector<std::vector<std::size_t>> leaving_;  // by state: the edges leaving it
  std::uint32_t last_ = 0;
};

Status TooManyPaths() {
  return Status(ErrorCode::kBadValue,
                "the query's tokens form more than " + std::to_string(kMaxGraphPaths) +
                    " paths through their graph (Lucene's limit on a boolean query's clauses)");
}

FieldQuery OneOrSynonym(std::vector<std::string> terms) {
  return terms.size() == 1 ? FieldQuery::Term(std::move(terms.front()))
                           : FieldQuery::Synonym(std::move(terms));
}

// Lucene's newGraphSynonymQuery: the paths' queries as should clauses (one alone as itself).
FieldQuery AnyOf(std::vector<FieldQuery> queries) {
  if (queries.size() == 1) return std::move(queries.front());
  return FieldQuery::Combined(Kind::kShould, std::move(queries));
}

StatusWith<std::optional<FieldQuery>> GraphBoolean(const std::vector<QueryToken>& tokens,
                                                   Kind occur) {
  const TokenGraph graph(tokens);
  std::vector<FieldQuery> clauses;
  std::uint32_t start = 0;
  std::vector<std::uint32_t> points = graph.ArticulationPoints();
  for (std::size_t i = 0; i <= points.size(); ++i) {
    const std::optional<std::uint32_t> end =
        i < points.size() ? std::optional<std::uint32_t>(points[i]) : std::nullopt;
    if (graph.HasSidePath(start)) {
      std::vector<std::vector<QueryToken>> paths;
      if (!graph.PathsBetween(start, end, &paths)) return TooManyPaths();
      std::vector<FieldQuery> alternatives;
      for (const std::vector<QueryToken>& path : paths) {
        QUARRY_ASSIGN_OR_RETURN(std::optional<FieldQuery> query,
                                BuildFieldQuery(path, true, false, 0));
        if (query.has_value()) alternatives.push_back(std::move(*query));
      }
      if (!alternatives.empty()) clauses.push_back(AnyOf(std::move(alternatives)));
    } else if (std::vector<std::string> terms = graph.TermsFrom(start); !terms.empty()) {
      clauses.push_back(OneOrSynonym(std::move(terms)));
    }
    if (end.has_value()) start = *end;
  }
  return std::optional<FieldQuery>(FieldQuery::Combined(occur, std::move(clauses)));
}

StatusWith<std::optional<FieldQuery>> GraphPhrase(const std::vector<QueryToken>& tokens,
                                                  std::uint32_t slop) {
  const TokenGraph graph(tokens);
  std::vector<std::vector<QueryToken>> paths;
  if (!graph.PathsBetween(0, std::nullopt, &paths)) return TooManyPaths();
  std::vector<FieldQuery> phrases;
  for (const std::vector<QueryToken>& path : paths) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<FieldQuery> query,
                            BuildFieldQuery(path, true, true, slop));
    if (query.has_value()) phrases.push_back(std::move(*query));
  }
  return std::optional<FieldQuery>(FieldQuery::Combined(Kind::kShould, std::move(phrases)));
}

// The tokens' terms grouped by position, in order.
std::vector<FieldQuery::Slot> Slots(const std::vector<QueryToken>& tokens) {
  std::vector<FieldQuery::Slot> slots;
  for (const QueryToken& token : tokens) {
    if (slots.empty() || slots.back().position != token.position) {
      slots.push_back({{}, token.position});
    }
    slots.back().terms.push_back(token.term);
  }
  return slots;
}

}  // namespace

StatusWith<std::optional<FieldQuery>> BuildFieldQuery(const std::vector<QueryToken>& tokens,
                                                      bool all, bool quoted, std::uint32_t slop) {
  if (tokens.empty()) return std::optional<FieldQuery>();
  if (tokens.size() == 1) return std::optional<FieldQuery>(FieldQuery::Term(tokens.front().term));
  const Kind occur = all ? Kind::kMust : Kind::kShould;
  const bool graph = std::any_of(tokens.begin(), tokens.end(),
                                 [](const QueryToken& token) { return token.length > 1; });
  if (graph) return quoted ? GraphPhrase(tokens, slop) : GraphBoolean(tokens, occur);
  std::vector<FieldQuery::Slot> slots = Slots(tokens);
  const std::uint32_t position_count = tokens.back().position + 1;
  if (quoted && position_count > 1) {
    FieldQuery phrase;
    phrase.kind = Kind::kPhrase;
    phrase.slots = std::move(slots);
    phrase.slop = slop;
    return std::optional<FieldQuery>(std::move(phrase));
  }
  if (position_count == 1) return std::optional<FieldQuery>(OneOrSynonym(slots.front().terms));
  std::vector<FieldQuery> clauses;
  for (FieldQuery::Slot& slot : slots) clauses.push_back(OneOrSynonym(std::move(slot.terms)));
  return std::optional<FieldQuery>(FieldQuery::Combined(occur, std::move(clauses)));
}

namespace {

// How often a phrase occurs in a label within `slop`: 1 per exact occurrence, 1 / (1 + distance)
// per sloppy one (Lucene's sloppy frequency); 0 when it does not. `positions` holds each slot's
// positions in the label, sorted and distinct; `offsets` each slot's place in the phrase.
double SloppyFrequency(const std::vector<std::vector<std::uint32_t>>& positions,
                       const std::vector<std::uint32_t>& offsets, std::uint32_t slop) {
  double frequency = 0;
  for (const std::uint32_t first : positions[0]) {
    // Each slot's occurrence nearest to where the phrase puts it after `first`.
    std::int64_t low = first, high = first;
    for (std::size_t i = 1; i < positions.size(); ++i) {
      const std::int64_t want = static_cast<std::int64_t>(first) + offsets[i] - offsets[0];
      std::int64_t best = -1;
      for (const std::uint32_t p : positions[i]) {
        if (best < 0 || std::llabs(static_cast<std::int64_t>(p) - want) < std::llabs(best - want)) {
          best = p;
        }
      }
      const std::int64_t start = best - (offsets[i] - offsets[0]);
      low = std::min(low, start);
      high = std::max(high, start);
    }
    const std::int64_t distance = high - low;
    if (distance == 0) {
      frequency += 1;
    } else if (distance <= static_cast<std::int64_t>(slop)) {
      frequency += 1.0 / (1.0 + static_cast<double>(distance));
    }
  }
  return frequency;
}

class Scorer {
 public:
  Scorer(const Field& field, const std::function<bool(std::size_t)>& stopped)
      : field_(field), stopped_(stopped) {}

  // Adds each label's score under `query` to `out`.
  void Add(const FieldQuery& query, ScoreMap* out) {
    switch (query.kind) {
      case Kind::kTerm:
        TermScores(query.terms.front(), out);
        break;
      case Kind::kSynonym:
        SynonymScores(query.terms, out);
        break;
      case Kind::kPhrase:
        PhraseScores(query, out);
        break;
      case Kind::kShould:
        for (const FieldQuery& clause : query.clauses) Add(clause, out);
        break;
      case Kind::kMust:
        AddAll(MustScores(query.clauses), out);
        break;
      case Kind::kDismax:
        AddAll(DismaxScores(query), out);
        break;
      case Kind::kBoost: {
        ScoreMap inner = Of(query.clauses.front());
        for (auto& [label, score] : inner) (*out)[label] += score * query.factor;
        break;
      }
    }
  }

 private:
  // Asks `stopped_` every 1,024 steps: often enough for an interrupt, rarely enough to cost
  // nothing per posting.
  bool Stopped() { return ++steps_ % 1024 == 0 && stopped_(steps_); }

  ScoreMap Of(const FieldQuery& query) {
    ScoreMap scores;
    Add(query, &scores);
    return scores;
  }

  static void AddAll(const ScoreMap& from, ScoreMap* out) {
    for (const auto& [label, score] : from) (*out)[label] += score;
  }

  void TermScores(const std::string& term, ScoreMap* out) {
    auto postings = field_.terms.find(term);
    if (postings == field_.terms.end()) return;
    out->reserve(out->size() + postings->second.size());
    const double idf = field_.Idf(postings->second.size());
    for (const auto& [label, positions] : postings->second) {
      if (Stopped()) return;
      (*out)[label] += field_.Score(label, static_cast<double>(positions.size()), idf);
    }
  }

  // Lucene's SynonymQuery: one pseudo-term whose frequency in a label is the sum of its terms'
  // (a repeated term counts again) and whose document frequency is the largest of theirs.
  void SynonymScores(const std::vector<std::string>& terms, ScoreMap* out) {
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
    for (const auto& [label, tf] : frequency) (*out)[label] += field_.Score(label, tf, idf);
  }

  // PhraseQuery, or MultiPhraseQuery where a slot holds several terms: BM25 of the phrase's
  // frequency with the summed idf of every term the index holds. An exact phrase counts each
  // occurrence of its first slot that the others complete (an occurrence two of the slot's
  // terms share counts twice, as Lucene's union of their positions keeps both).
  void PhraseScores(const FieldQuery& query, ScoreMap* out) {
    std::vector<std::vector<const Postings*>> slots;
    std::vector<std::uint32_t> offsets;
    double idf = 0;
    for (const FieldQuery::Slot& slot : query.slots) {
      std::vector<const Postings*> found;
      for (const std::string& term : slot.terms) {
        auto it = field_.terms.find(term);
        if (it == field_.terms.end()) continue;
        found.push_back(&it->second);
        idf += field_.Idf(it->second.size());
      }
      if (found.empty()) return;  // a slot no document holds
      slots.push_back(std::move(found));
      offsets.push_back(slot.position);
    }
    if (slots.empty()) return;
    // Candidates: the labels of the slot held by fewest.
    auto count = [](const std::vector<const Postings*>& slot) {
      std::size_t n = 0;
      for (const Postings* postings : slot) n += postings->size();
      return n;
    };
    const auto rarest =
        std::min_element(slots.begin(), slots.end(),
                         [&](const auto& a, const auto& b) { return count(a) < count(b); });
    std::set<std::uint32_t> candidates;
    for (const Postings* postings : *rarest) {
      for (const auto& [label, unused] : *postings) candidates.insert(label);
    }
    std::vector<std::vector<std::uint32_t>> positions(slots.size());
    for (const std::uint32_t label : candidates) {
      if (Stopped()) return;
      bool complete = true;
      for (std::size_t i = 0; i < slots.size() && complete; ++i) {
        positions[i].clear();
        for (const Postings* postings : slots[i]) {
          if (const Positions* at = postings->Find(label)) {
            positions[i].insert(positions[i].end(), at->begin(), at->end());
          }
        }
        std::sort(positions[i].begin(), positions[i].end());
        complete = !positions[i].empty();
      }
      if (!complete) continue;
      const double frequency = query.slop == 0
                                   ? ExactFrequency(positions, offsets)
                                   : SloppyOverDistinct(&positions, offsets, query.slop);
      if (frequency > 0) (*out)[label] += field_.Score(label, frequency, idf);
    }
  }

  static double ExactFrequency(const std::vector<std::vector<std::uint32_t>>& positions,
                               const std::vector<std::uint32_t>& offsets) {
    double frequency = 0;
    for (const std::uint32_t first : positions[0]) {
      bool whole = true;
      for (std::size_t i = 1; i < positions.size() && whole; ++i) {
        const std::int64_t want = static_cast<std::int64_t>(first) + offsets[i] - offsets[0];
        whole = want >= 0 && std::binary_search(positions[i].begin(), positions[i].end(),
                                                static_cast<std::uint32_t>(want));
      }
      if (whole) frequency += 1;
    }
    return frequency;
  }

  static double SloppyOverDistinct(std::vector<std::vector<std::uint32_t>>* positions,
                                   const std::vector<std::uint32_t>& offsets, std::uint32_t slop) {
    for (std::vector<std::uint32_t>& slot : *positions) {
      slot.erase(std::unique(slot.begin(), slot.end()), slot.end());
    }
    return SloppyFrequency(*positions, offsets, slop);
  }

  ScoreMap MustScores(const std::vector<FieldQuery>& clauses) {
    ScoreMap out;
    bool first = true;
    for (const FieldQuery& clause : clauses) {
      ScoreMap scores = Of(clause);
      if (first) {
        out = std::move(scores);
        first = false;
        continue;
      }
      out.IntersectWith(scores);
    }
    return out;
  }

  // Lucene's DisjunctionMaxQuery: the best clause's score plus the tie breaker times the others'.
  ScoreMap DismaxScores(const FieldQuery& query) {
    ScoreMap out, best;
    for (const FieldQuery& clause : query.clauses) {
      for (const auto& [label, score] : Of(clause)) {
        out[label] += score;
        best[label] = std::max(best[label], score);
      }
    }
    for (auto& [label, sum] : out) {
      const double top = best.at(label);
      sum = top + query.factor * (sum - top);
    }
    return out;
  }

  const Field& field_;
  const std::function<bool(std::size_t)>& stopped_;
  std::size_t steps_ = 0;
};

}  // namespace

void ScoreFieldQuery(const InvertedIndex::Field& field, const FieldQuery& query,
                     const std::function<bool(std::size_t steps)>& stopped, ScoreMap* scores) {
  Scorer(field, stopped).Add(query, scores);
}

}  // namespace quarry::text
