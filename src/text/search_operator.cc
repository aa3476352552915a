// $search's operators evaluated over an index: a score per matching label.
#include "text/search_operator.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "bson/builder.h"
#include "bson/compare.h"
#include "text/edit_distance.h"
#include "text/field_query.h"
#include "text/synonym_query.h"
#include "text/term_pattern.h"

namespace quarry::text {
namespace {

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

// The interrupt of the search being evaluated on this thread (null: none). Evaluation runs on
// one thread from start to end, so the loops that can run long check it here instead of
// every function passing it down; the first failed check stops them all.
thread_local const Interrupt* evaluation_interrupt = nullptr;
thread_local Status evaluation_stop;
thread_local const SynonymMaps* evaluation_synonyms = nullptr;

// Whether the search should stop: checked every `kCheckEvery` steps of a long loop.
constexpr std::size_t kCheckEvery = 4096;
bool Stopped(std::size_t step = 0) {
  if (!evaluation_stop.ok()) return true;
  if (evaluation_interrupt == nullptr || step % kCheckEvery != 0) return false;
  evaluation_stop = evaluation_interrupt->Check();
  return !evaluation_stop.ok();
}

// Ends the evaluation with `status` (a query the index cannot answer); the first failure wins.
void Fail(Status status) {
  if (evaluation_stop.ok()) evaluation_stop = std::move(status);
}

// Stopped, as the scorers of other files ask it.
const std::function<bool(std::size_t)>& StopCheck() {
  static const std::function<bool(std::size_t)> check = [](std::size_t steps) {
    return Stopped(steps);
  };
  return check;
}

SearchScores Evaluate(const SearchOperator& op, const InvertedIndex& index,
                      const FullTextMapping& mapping);

}  // namespace

bool PathMatchesPattern(std::string_view pattern, std::string_view path) {
  // Greedy matching that backtracks only to the last '*': linear in practice, never
  // exponential however many stars a pattern has.
  std::size_t p = 0, s = 0;
  std::size_t star = std::string_view::npos, resume = 0;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = s;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

// The paths of `index` that `patterns` name ('*' matches any run of characters, dots too).
std::vector<std::string> ResolvePaths(const std::vector<std::string>& patterns,
                                      const InvertedIndex& index) {
  std::set<std::string> out;
  for (const std::string& pattern : patterns) {
    if (pattern.find('*') == std::string::npos) {
      out.insert(pattern);
      continue;
    }
    // A wildcard names the fields' own analysis, not their multi analyzers'.
    for (std::string_view path : index.Paths()) {
      if (!IsMultiPath(path) && PathMatchesPattern(pattern, path)) out.emplace(path);
    }
  }
  return {out.begin(), out.end()};
}

struct Expansion {
  const InvertedIndex::Postings* postings;
  double boost;
};

// The terms of `field` within the fuzzy distance of `term`, best first, as Lucene's fuzzy
// query expands them: each weighted 1 - edits / (the shorter length), all sharing the largest
// document frequency among them.
std::vector<Expansion> FuzzyExpansions(const InvertedIndex::Field& field, std::string_view term,
                                       const FuzzyOptions& fuzzy, std::size_t* max_df) {
  const std::vector<char32_t> wanted = CodePointsOf(term);
  std::string prefix;
  {
    const std::size_t keep = std::min(fuzzy.prefix_length, wanted.size());
    std::size_t bytes = 0;
    const auto* raw = reinterpret_cast<const std::uint8_t*>(term.data());
    for (std::size_t k = 0; k < keep; ++k) U8_FWD_1(raw, bytes, term.size());
    prefix = std::string(term.substr(0, bytes));
  }
  struct Candidate {
    int edits;
    std::size_t df;
    const std::string* term;
    const InvertedIndex::Postings* postings;
    std::size_t shorter;
  };
  std::vector<Candidate> candidates;
  std::size_t steps = 0;
  for (auto it = field.terms.lower_bound(prefix);
       it != field.terms.end() && std::string_view(it->first).starts_with(prefix); ++it) {
    if (Stopped(++steps)) break;
    const std::vector<char32_t> have = CodePointsOf(it->first);
    const int edits = EditDistance(wanted, have, fuzzy.max_edits);
    if (edits > fuzzy.max_edits) continue;
    candidates.push_back(
        {edits, it->second.size(), &it->first, &it->second, std::min(have.size(), wanted.size())});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     if (a.edits != b.edits) return a.edits < b.edits;
                     return *a.term < *b.term;
                   });
  if (candidates.size() > fuzzy.max_expansions) candidates.resize(fuzzy.max_expansions);
  std::vector<Expansion> out;
  *max_df = 0;
  for (const Candidate& c : candidates) {
    *max_df = std::max(*max_df, c.df);
    const double boost = c.edits == 0
                             ? 1.0
                             : 1.0 - static_cast<double>(c.edits) /
                                         static_cast<double>(std::max<std::size_t>(c.shorter, 1));
    if (boost > 0) out.push_back({c.postings, boost});
  }
  return out;
}

// Adds to `scores` the BM25 of `term` (or of its fuzzy expansions) in each label of `field`
// holding it.
void ScoreTerm(const InvertedIndex::Field& field, const std::string& term,
               const std::optional<FuzzyOptions>& fuzzy, SearchScores* scores) {
  if (fuzzy.has_value()) {
    std::size_t max_df = 0;
    const std::vector<Expansion> expansions = FuzzyExpansions(field, term, *fuzzy, &max_df);
    const double idf = field.Idf(max_df);
    for (const Expansion& expansion : expansions) {
      for (const auto& [label, positions] : *expansion.postings) {
        (*scores)[label] +=
            expansion.boost * field.Score(label, static_cast<double>(positions.size()), idf);
      }
    }
    return;
  }
  ScoreFieldQuery(field, FieldQuery::Term(term), StopCheck(), scores);
}

// Lucene's fuzzy text query on one field: a FuzzyQuery per token (stacked ones too), joined by
// SHOULD, or by MUST for matchCriteria "all".
void ScoreFuzzy(const InvertedIndex::Field& field, const std::vector<QueryToken>& tokens,
                const FuzzyOptions& fuzzy, bool all, SearchScores* scores) {
  if (!all || tokens.size() == 1) {
    for (const QueryToken& token : tokens) ScoreTerm(field, token.term, fuzzy, scores);
    return;
  }
  SearchScores every;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    SearchScores one;
    ScoreTerm(field, tokens[t].term, fuzzy, &one);
    if (t == 0) {
      every = std::move(one);
      continue;
    }
    every.IntersectWith(one);
  }
  for (const auto& [label, score] : every) (*scores)[label] += score;
}

// Adds to `scores` what Lucene's QueryBuilder makes of `tokens` on `field`.
void ScoreAnalyzed(const InvertedIndex::Field& field, const std::vector<QueryToken>& tokens,
                   bool all, bool quoted, std::uint32_t slop, SearchScores* scores) {
  StatusWith<std::optional<FieldQuery>> query = BuildFieldQuery(tokens, all, quoted, slop);
  if (!query.ok()) {
    Fail(query.status());
    return;
  }
  if (query.value().has_value()) ScoreFieldQuery(field, *query.value(), StopCheck(), scores);
}

// The synonym mapping `op` names, or null after failing the search: an unknown name.
const SynonymMap* NamedSynonyms(const SearchOperator& op) {
  auto named = evaluation_synonyms != nullptr ? evaluation_synonyms->find(op.synonyms)
                                              : SynonymMaps::const_iterator();
  if (evaluation_synonyms == nullptr || named == evaluation_synonyms->end()) {
    Fail(Bad("unknown synonym mapping name \"" + op.synonyms + "\""));
    return nullptr;
  }
  return named->second.get();
}

// text or phrase with a synonym mapping, per query string and path (Lucene's clauses, summed).
SearchScores EvaluateWithSynonyms(const SearchOperator& op, const SynonymMap& synonyms,
                                  const InvertedIndex& index, const FullTextMapping& mapping) {
  SearchScores scores;
  const bool phrase = op.kind == SearchOperator::Kind::kPhrase;
  using Criteria = SearchOperator::MatchCriteria;
  const SynonymMatch match = op.match_criteria == Criteria::kUnset ? SynonymMatch::kPhrase
                             : op.match_criteria == Criteria::kAll ? SynonymMatch::kAll
                                                                   : SynonymMatch::kAny;
  for (const std::string& query : op.queries) {
    for (const std::string& path : ResolvePaths(op.paths, index)) {
      const SearchAnalyzer& analyzer = mapping.SearchAnalyzerFor(path);
      if (analyzer.name() != synonyms.analyzer().name()) {
        Fail(Bad("synonym mapping \"" + op.synonyms + "\" is only allowed with " +
                 std::string(synonyms.analyzer().name()) + " analyzer, field " + QuotedPath(path) +
                 " is analyzed with " + std::string(analyzer.name()) + " analyzer"));
        return scores;
      }
      const std::vector<QueryToken> tokens = analyzer.QueryTokens(query);
      if (!phrase && tokens.empty() && match == SynonymMatch::kPhrase) {
        Fail(
            Bad("text with synonyms: the query analyzed to zero tokens; it must hold a word "
                "that is not a stop word"));
        return scores;
      }
      const InvertedIndex::Field* field = index.FieldAt(path);
      if (field == nullptr) continue;
      Status scored =
          phrase ? ScorePhraseWithSynonyms(*field, tokens, synonyms, op.slop, StopCheck(), &scores)
                 : ScoreWithSynonyms(*field, tokens, synonyms, match, StopCheck(), &scores);
      if (!scored.ok()) Fail(std::move(scored));
      if (Stopped()) return scores;
    }
  }
  return scores;
}

SearchScores EvaluateText(const SearchOperator& op, const InvertedIndex& index,
                          const FullTextMapping& mapping) {
  if (!op.synonyms.empty()) {
    const SynonymMap* synonyms = NamedSynonyms(op);
    if (synonyms == nullptr) return {};
    // An empty mapping leaves a query without matchCriteria matching any of its terms.
    if (!synonyms->empty() || op.match_criteria != SearchOperator::MatchCriteria::kUnset) {
      return EvaluateWithSynonyms(op, *synonyms, index, mapping);
    }
  }
  // Per query string and path, Lucene's query for them; their scores add up (SHOULD).
  const bool all = op.match_criteria == SearchOperator::MatchCriteria::kAll;
  SearchScores scores;
  for (const std::string& query : op.queries) {
    for (const std::string& path : ResolvePaths(op.paths, index)) {
      const InvertedIndex::Field* field = index.FieldAt(path);
      if (field == nullptr) continue;
      const SearchAnalyzer& analyzer = mapping.SearchAnalyzerFor(path);
      std::vector<QueryToken> tokens;
      if (!op.normalize_pattern) {
        tokens = analyzer.QueryTokens(query);
      } else if (std::string term = analyzer.Normalize(query); !term.empty()) {
        tokens.push_back({std::move(term), 0, 1});
      }
      if (op.fuzzy.has_value()) {
        ScoreFuzzy(*field, tokens, *op.fuzzy, all, &scores);
      } else {
        ScoreAnalyzed(*field, tokens, all, false, 0, &scores);
      }
      if (Stopped()) return scores;
    }
  }
  return scores;
}

SearchScores EvaluatePhrase(const SearchOperator& op, const InvertedIndex& index,
                            const FullTextMapping& mapping) {
  if (!op.synonyms.empty()) {
    const SynonymMap* synonyms = NamedSynonyms(op);
    return synonyms != nullptr ? EvaluateWithSynonyms(op, *synonyms, index, mapping)
                               : SearchScores();
  }
  SearchScores scores;
  for (const std::string& query : op.queries) {
    for (const std::string& path : ResolvePaths(op.paths, index)) {
      const InvertedIndex::Field* field = index.FieldAt(path);
      if (field == nullptr) continue;
      ScoreAnalyzed(*field, mapping.SearchAnalyzerFor(path).QueryTokens(query), true, true, op.slop,
                    &scores);
      if (Stopped()) return scores;
    }
  }
  return scores;
}

// `word` as the grams of `options` can hold it: no longer than maxGrams, cut at the end the
// grams start from; empty when it is shorter than minGrams or no gram could equal it.
std::string AsGram(const AutocompleteOptions& options, std::string word) {
  std::vector<char32_t> points = CodePointsOf(word);
  if (points.size() < options.min_grams) return {};
  if (points.size() <= options.max_grams) return word;
  if (options.tokenization == AutocompleteOptions::Tokenization::kNGram) return {};
  const bool from_start = options.tokenization == AutocompleteOptions::Tokenization::kEdgeGram;
  std::string out;
  const std::size_t skip = from_start ? 0 : points.size() - options.max_grams;
  for (std::size_t k = skip; k < skip + options.max_grams; ++k) {
    char bytes[U8_MAX_LENGTH];
    std::int32_t n = 0;
    U8_APPEND_UNSAFE(bytes, n, points[k]);
    out.append(bytes, static_cast<std::size_t>(n));
  }
  return out;
}

SearchScores EvaluateAutocomplete(const SearchOperator& op, const InvertedIndex& index,
                                  const FullTextMapping& mapping) {
  SearchScores scores;
  for (const std::string& query : op.queries) {
    for (const std::string& path : op.paths) {
      const AutocompleteOptions* options = mapping.AutocompleteAt(path);
      const InvertedIndex::Field* field = index.AutocompleteFieldAt(path);
      if (options == nullptr || field == nullptr) continue;
      const SearchAnalyzer& analyzer =
          options->analyzer != nullptr ? *options->analyzer : SearchAnalyzer::Standard();
      std::vector<std::string> grams;
      for (const QueryToken& word : analyzer.QueryTokens(query)) {
        grams.push_back(AsGram(*options, options->Fold(word.term)));
      }
      if (grams.empty()) continue;
      if (op.sequential) {
        // The words one after another: a phrase of the grams at positions 0, 1, ...
        if (std::none_of(grams.begin(), grams.end(),
                         [](const std::string& gram) { return gram.empty(); })) {
          ScoreFieldQuery(
              *field,
              grams.size() == 1 ? FieldQuery::Term(grams.front()) : FieldQuery::Phrase(grams),
              StopCheck(), &scores);
        }
        continue;
      }
      for (const std::string& gram : grams) {
        if (!gram.empty()) ScoreTerm(*field, gram, op.fuzzy, &scores);
      }
    }
  }
  return scores;
}

// Whether a queryString clause drops out: its words analyze to no term on every path.
bool AnalyzedAway(const SearchOperator& op, const FullTextMapping& mapping) {
  if (!op.absent_without_terms) return false;
  if (op.kind == SearchOperator::Kind::kCompound) {
    for (const auto* clauses : {&op.must, &op.should, &op.must_not, &op.filter}) {
      for (const SearchOperator& clause : *clauses) {
        if (!AnalyzedAway(clause, mapping)) return false;
      }
    }
    return true;
  }
  for (const std::string& path : op.paths) {
    for (const std::string& query : op.queries) {
      if (!mapping.SearchAnalyzerFor(path).QueryTokens(query).empty()) return false;
    }
  }
  return true;
}

SearchScores EvaluateCompound(const SearchOperator& op, const InvertedIndex& index,
                              const FullTextMapping& mapping) {
  std::optional<SearchScores> required;  // must and filter: the labels every clause matches
  auto intersect = [&](const SearchScores& clause, bool scored) {
    if (!required.has_value()) {
      required = SearchScores();
      for (const auto& [label, score] : clause) (*required)[label] = scored ? score : 0;
      return;
    }
    required->IntersectWith(clause, scored);
  };
  for (const SearchOperator& clause : op.must) {
    if (!AnalyzedAway(clause, mapping)) intersect(Evaluate(clause, index, mapping), true);
  }
  for (const SearchOperator& clause : op.filter) {
    intersect(Evaluate(clause, index, mapping), false);
  }
  // Lucene's boolean query: with no required clause, a document must match a should clause.
  const std::size_t minimum =
      std::max<std::size_t>(op.minimum_should_match, required.has_value() ? 0 : 1);
  SearchScores should_scores, should_best;
  std::unordered_map<std::uint32_t, std::size_t> should_matches;
  const bool dismax = op.score.kind == ScoreModifier::Kind::kDismax && op.should.size() > 1;
  for (const SearchOperator& clause : op.should) {
    if (AnalyzedAway(clause, mapping)) continue;
    for (const auto& [label, score] : Evaluate(clause, index, mapping)) {
      should_scores[label] += score;
      ++should_matches[label];
      if (dismax) should_best[label] = std::max(should_best[label], score);
    }
  }
  if (dismax) {
    // Lucene's DisjunctionMaxQuery, itself the compound's one should clause: the best clause's
    // score plus the tie breaker times the others'.
    for (auto& [label, score] : should_scores) {
      const double best = should_best[label];
      score = best + op.score.value * (score - best);
      should_matches[label] = 1;
    }
  }
  SearchScores out;
  if (required.has_value()) {
    for (const auto& [label, score] : *required) {
      auto matches = should_matches.find(label);
      const std::size_t n = matches != should_matches.end() ? matches->second : 0;
      if (n < minimum) continue;
      out[label] = score + (n > 0 ? should_scores[label] : 0);
    }
  } else {
    for (const auto& [label, n] : should_matches) {
      if (n >= minimum) out[label] = should_scores[label];
    }
  }
  for (const SearchOperator& clause : op.must_not) {
    for (const auto& [label, score] : Evaluate(clause, index, mapping)) out.erase(label);
  }
  return out;
}

// Whether a held value and a query's value are of one kind and compare as `accept` says.
template <typename Accept>
bool Compares(bson::ValueView held, bson::ValueView wanted, Accept accept) {
  return ValueKindOf(held) == ValueKindOf(wanted) && accept(bson::CompareValues(held, wanted));
}

bool InRange(bson::ValueView held, bson::DocumentView bounds) {
  for (const bson::Element& bound : bounds) {
    const bool ok = Compares(held, bound.value, [&](int c) {
      if (bound.key == "gt") return c > 0;
      if (bound.key == "gte") return c >= 0;
      if (bound.key == "lt") return c < 0;
      return c <= 0;
    });
    if (!ok) return false;
  }
  return true;
}

// `values` (an array, or range's bounds) with their strings lowercased, as a token field with
// the "lowercase" normalizer holds them.
bson::Document LowercasedStrings(bson::DocumentView values) {
  bson::DocumentBuilder out;
  for (const bson::Element& e : values) {
    if (e.value.type() == bson::Type::kString) {
      out.AppendString(e.key, LowercaseCodePoints(e.value.String()));
    } else {
      out.Append(e.key, e.value);
    }
  }
  return std::move(out).Finish();
}

SearchScores EvaluateValues(const SearchOperator& op, const InvertedIndex& index,
                            const FullTextMapping& mapping) {
  SearchScores scores;
  if (op.kind == SearchOperator::Kind::kExists) {
    for (const std::uint32_t label : index.LabelsHolding(op.paths.front())) scores[label] = 1;
    return scores;
  }
  // A path whose tokens are held lowercased is queried lowercased too.
  const bson::Document lowered = LowercasedStrings(op.values.view());
  std::set<std::string_view> lowercase_paths;
  for (const std::string& path : op.paths) {
    if (mapping.LowercaseTokensAt(path)) lowercase_paths.insert(path);
  }
  std::size_t steps = 0;
  for (const auto& [label, values] : index.values()) {
    if (Stopped(++steps)) break;
    for (const bson::Element& held : values.view()) {
      if (std::find(op.paths.begin(), op.paths.end(), held.key) == op.paths.end()) continue;
      bool match = false;
      const bson::DocumentView wanted_values =
          lowercase_paths.contains(held.key) ? lowered.view() : op.values.view();
      if (op.kind == SearchOperator::Kind::kRange) {
        match = InRange(held.value, wanted_values);
      } else {
        for (const bson::Element& wanted : wanted_values) {
          if (Compares(held.value, wanted.value, [](int c) { return c == 0; })) match = true;
        }
      }
      if (match) {
        scores[label] = 1;
        break;
      }
    }
  }
  return scores;
}

// What wildcard, regex and term ranges share: for each of `op`'s paths the index holds,
// `walk(path, field, take)` looks through the field's ordered terms, calling take(&postings) for
// each term it picks and take(nullptr) for each it passes over (so long walks stay
// interruptible); a document scores 1 for each path where it holds a picked term. take answers
// false when the evaluation must stop, and walk then returns.
template <typename Walk>
SearchScores OneForEachPathHoldingATerm(const SearchOperator& op, const InvertedIndex& index,
                                        Walk walk) {
  SearchScores scores;
  std::size_t steps = 0;
  for (const std::string& path : ResolvePaths(op.paths, index)) {
    const InvertedIndex::Field* field = index.FieldAt(path);
    if (field == nullptr) continue;
    std::set<std::uint32_t> matched;
    walk(path, *field, [&](const InvertedIndex::Postings* postings) {
      if (Stopped(++steps)) return false;
      if (postings != nullptr) {
        for (const auto& [label, positions] : *postings) matched.insert(label);
      }
      return true;
    });
    if (Stopped()) return scores;
    for (const std::uint32_t label : matched) scores[label] += 1;
  }
  return scores;
}

// wildcard and regex: 1 for each path where one of the label's terms matches a pattern whole.
SearchScores EvaluatePatterns(const SearchOperator& op, const InvertedIndex& index,
                              const FullTextMapping& mapping) {
  const std::string_view name = op.kind == SearchOperator::Kind::kWildcard ? "wildcard" : "regex";
  for (const std::string& path : ResolvePaths(op.paths, index)) {
    const SearchAnalyzer& analyzer = mapping.AnalyzerFor(path);
    if (!op.allow_analyzed_field && mapping.MayHoldStrings(path) &&
        analyzer.name() != "lucene.keyword") {
      Fail(Bad(std::string(name) + " on " + QuotedPath(path) + ", which " +
               std::string(analyzer.name()) +
               " analyzes, needs allowAnalyzedField: true (the patterns match its terms, not "
               "its whole values)"));
      return {};
    }
  }
  // A wildcard pattern on an analyzed field goes through the analyzer's normalizing filters,
  // not its tokenizer; a regex is matched as written unless queryString sent it.
  const bool normalize = (op.kind == SearchOperator::Kind::kWildcard && op.allow_analyzed_field) ||
                         op.normalize_pattern;
  auto compile = [&](const std::string& path) {
    std::vector<TermPattern> patterns;
    for (const std::string& query : op.queries) {
      const std::string normalized =
          normalize ? mapping.SearchAnalyzerFor(path).Normalize(query) : query;
      StatusWith<TermPattern> pattern = op.kind == SearchOperator::Kind::kWildcard
                                            ? TermPattern::Wildcard(normalized)
                                            : TermPattern::Regex(normalized);
      if (!pattern.ok()) {
        Fail(pattern.status());
        return std::vector<TermPattern>();
      }
      patterns.push_back(std::move(pattern).value());
    }
    return patterns;
  };
  return OneForEachPathHoldingATerm(
      op, index, [&](const std::string& path, const InvertedIndex::Field& field, auto take) {
        for (const TermPattern& pattern : compile(path)) {
          const std::string& prefix = pattern.literal_prefix();
          for (auto it = field.terms.lower_bound(prefix);
               it != field.terms.end() && std::string_view(it->first).starts_with(prefix); ++it) {
            if (!take(pattern.Matches(it->first) ? &it->second : nullptr)) return;
          }
        }
      });
}

// A term range (queryString's `[a TO b]`): 1 for each path holding a term between the bounds,
// which pass the analyzer's normalizing filters first, as Lucene's parser sends them.
SearchScores EvaluateTermRange(const SearchOperator& op, const InvertedIndex& index,
                               const FullTextMapping& mapping) {
  return OneForEachPathHoldingATerm(
      op, index, [&](const std::string& path, const InvertedIndex::Field& field, auto take) {
        const SearchAnalyzer& analyzer = mapping.SearchAnalyzerFor(path);
        auto it = field.terms.begin();
        std::optional<std::string> upper;
        bool upper_inclusive = false;
        for (const bson::Element& bound : op.values.view()) {
          const std::string normalized = analyzer.Normalize(bound.value.String());
          if (bound.key == "gte") it = field.terms.lower_bound(normalized);
          if (bound.key == "gt") it = field.terms.upper_bound(normalized);
          if (bound.key == "lte" || bound.key == "lt") {
            upper = normalized;
            upper_inclusive = bound.key == "lte";
          }
        }
        for (; it != field.terms.end(); ++it) {
          if (upper.has_value()) {
            const int order = it->first.compare(*upper);
            if (order > 0 || (order == 0 && !upper_inclusive)) break;
          }
          if (!take(&it->second)) return;
        }
      });
}

// moreLikeThis, as Lucene's MoreLikeThis runs with Atlas's settings: the like documents'
// strings, analyzed per field the index holds strings at (and per multi analyzer of it); of
// their terms that at least two documents hold, the 25 with the highest frequency in the like
// documents times Lucene's classic idf; then those terms searched as text is (BM25, summed).
constexpr std::size_t kMoreLikeThisTerms = 25;
constexpr std::size_t kMoreLikeThisMinDocFreq = 2;
constexpr std::size_t kMoreLikeThisTokensPerValue = 5000;

void CollectStrings(bson::ValueView value, const std::string& path,
                    std::vector<std::pair<std::string, std::string_view>>* out) {
  if (value.type() == bson::Type::kString) {
    out->emplace_back(path, value.String());
  } else if (value.type() == bson::Type::kArray) {
    for (const bson::Element& e : value.Document()) CollectStrings(e.value, path, out);
  } else if (value.type() == bson::Type::kDocument) {
    for (const bson::Element& e : value.Document()) {
      CollectStrings(e.value, path + "." + std::string(e.key), out);
    }
  }
}

SearchScores EvaluateMoreLikeThis(const SearchOperator& op, const InvertedIndex& index,
                                  const FullTextMapping& mapping) {
  std::vector<std::pair<std::string, std::string_view>> strings;
  for (const bson::Document& like : op.like) {
    for (const bson::Element& e : like.view())
      CollectStrings(e.value, std::string(e.key), &strings);
  }
  // field (a path, or a path's multi analyzer) -> term -> its frequency in the like documents
  std::map<std::string, std::map<std::string, double>> frequencies;
  for (const auto& [path, value] : strings) {
    if (!mapping.MayHoldStrings(path)) continue;
    std::vector<std::string> fields = mapping.MultiPathsOf(path);
    fields.insert(fields.begin(), path);
    for (const std::string& field : fields) {
      std::size_t tokens = 0;
      std::map<std::string, double>& terms = frequencies[field];
      mapping.SearchAnalyzerFor(field).Analyze(value, [&](std::string_view term, std::uint32_t) {
        if (++tokens <= kMoreLikeThisTokensPerValue) terms[std::string(term)] += 1;
      });
    }
  }
  struct Candidate {
    float weight;  // Lucene weighs in float
    const InvertedIndex::Field* field;
    const std::string* field_name;
    std::string term;
  };
  std::vector<Candidate> candidates;
  for (const auto& [name, terms] : frequencies) {
    const InvertedIndex::Field* field = index.FieldAt(name);
    if (field == nullptr) continue;
    for (const auto& [term, frequency] : terms) {
      auto postings = field->terms.find(term);
      if (postings == field->terms.end()) continue;
      const std::size_t df = postings->second.size();
      if (df < kMoreLikeThisMinDocFreq) continue;
      const auto idf = static_cast<float>(
          std::log(static_cast<double>(field->documents + 1) / static_cast<double>(df + 1)) + 1.0);
      candidates.push_back({static_cast<float>(frequency) * idf, field, &name, term});
    }
  }
  const std::size_t keep = std::min(kMoreLikeThisTerms, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep),
                    candidates.end(), [](const Candidate& a, const Candidate& b) {
                      if (a.weight != b.weight) return a.weight > b.weight;
                      if (*a.field_name != *b.field_name) return *a.field_name < *b.field_name;
                      return a.term < b.term;
                    });
  candidates.resize(keep);
  SearchScores scores;
  for (const Candidate& chosen : candidates) {
    ScoreTerm(*chosen.field, chosen.term, std::nullopt, &scores);
    if (Stopped()) break;
  }
  return scores;
}

// embeddedDocument: its operator over the sub-documents at its path, each on its own (in an
// index of their own, whose statistics are theirs), their scores combined per document.
SearchScores EvaluateEmbedded(const SearchOperator& op, const InvertedIndex& index,
                              const FullTextMapping& mapping) {
  SearchScores scores;
  const std::string& path = op.paths.front();
  const FullTextMapping* inner_mapping = mapping.EmbeddedAt(path);
  if (inner_mapping == nullptr) {
    Fail(Bad("embeddedDocument's path \"" + path +
             "\" is not mapped as embeddedDocuments by the index"));
    return scores;
  }
  const InvertedIndex::Embedded* embedded = index.EmbeddedAt(path);
  if (embedded == nullptr) return scores;
  using Aggregate = SearchOperator::EmbeddedAggregate;
  std::unordered_map<std::uint32_t, std::uint32_t> matched;  // for the mean
  for (const auto& [child, score] : Evaluate(op.inner.front(), embedded->index, *inner_mapping)) {
    const std::uint32_t parent = embedded->parent[child];
    const std::uint32_t seen = matched[parent]++;
    double& combined = scores[parent];
    switch (op.embedded_aggregate) {
      case Aggregate::kSum:
      case Aggregate::kMean:
        combined += score;
        break;
      case Aggregate::kMaximum:
        combined = seen == 0 ? score : std::max(combined, score);
        break;
      case Aggregate::kMinimum:
        combined = seen == 0 ? score : std::min(combined, score);
        break;
    }
  }
  if (op.embedded_aggregate == Aggregate::kMean) {
    for (auto& [parent, score] : scores) score /= matched[parent];
  }
  return scores;
}

// near: for each path, pivot / (pivot + the distance of the label's nearest value to origin),
// summed.
SearchScores EvaluateNear(const SearchOperator& op, const InvertedIndex& index) {
  SearchScores scores;
  const bson::ValueView origin = op.values.view().Get("origin");
  const std::optional<GeoPoint> origin_point = GeoPointOf(origin);
  const unsigned kind = ValueKindOf(origin);
  auto position = [](bson::ValueView v) {
    return v.type() == bson::Type::kDate ? static_cast<double>(v.Date()) : v.AsDouble();
  };
  // The distance of a held value from the origin (meters between points); none: another kind.
  auto distance = [&](bson::ValueView held) -> std::optional<double> {
    if (origin_point.has_value()) {
      const std::optional<GeoPoint> point = GeoPointOf(held);
      if (!point.has_value()) return std::nullopt;
      return HaversineMeters(*origin_point, *point);
    }
    if (ValueKindOf(held) != kind) return std::nullopt;
    return std::fabs(position(held) - position(origin));
  };
  std::size_t steps = 0;
  for (const auto& [label, values] : index.values()) {
    if (Stopped(++steps)) break;
    for (const std::string& path : op.paths) {
      double nearest = std::numeric_limits<double>::infinity();
      for (const bson::Element& held : values.view()) {
        if (held.key != path) continue;
        if (const std::optional<double> d = distance(held.value)) nearest = std::min(nearest, *d);
      }
      if (std::isfinite(nearest)) scores[label] += op.pivot / (op.pivot + nearest);
    }
  }
  return scores;
}

// geoWithin: 1 for each path holding a point inside the region.
SearchScores EvaluateGeoWithin(const SearchOperator& op, const InvertedIndex& index) {
  SearchScores scores;
  std::size_t steps = 0;
  for (const auto& [label, values] : index.values()) {
    if (Stopped(++steps)) break;
    for (const std::string& path : op.paths) {
      for (const bson::Element& held : values.view()) {
        if (held.key != path) continue;
        const std::optional<GeoPoint> point = GeoPointOf(held.value);
        if (point.has_value() && op.geo_region->Contains(*point)) {
          scores[label] += 1;
          break;
        }
      }
    }
  }
  return scores;
}

}  // namespace

namespace {

// The number `label` holds at `path` outside arrays, or `fallback`.
double NumberAt(const InvertedIndex& index, std::uint32_t label, std::string_view path,
                double fallback) {
  return index.SingleNumberAt(label, path).value_or(fallback);
}

// Whether the mapping holds numbers at `path`, as a score reading it needs; fails the evaluation
// when it does not.
bool IndexedAsNumbers(const std::string& path, const FullTextMapping& mapping) {
  if ((mapping.ValueKindsAt(path) & kNumberValues) != 0) return true;
  Fail(Bad("a score that reads \"" + path + "\" needs it indexed as a number"));
  return false;
}

// Lucene's rule for a computed score: a negative one, or one that is not a number, is 0.
double NonNegative(double score) { return score >= 0 ? score : 0; }

SearchScores Evaluate(const SearchOperator& op, const InvertedIndex& index,
                      const FullTextMapping& mapping) {
  SearchScores scores;
  if (Stopped()) return scores;
  switch (op.kind) {
    case SearchOperator::Kind::kText:
      scores = EvaluateText(op, index, mapping);
      break;
    case SearchOperator::Kind::kPhrase:
      scores = EvaluatePhrase(op, index, mapping);
      break;
    case SearchOperator::Kind::kAutocomplete:
      scores = EvaluateAutocomplete(op, index, mapping);
      break;
    case SearchOperator::Kind::kCompound:
      scores = EvaluateCompound(op, index, mapping);
      break;
    case SearchOperator::Kind::kEquals:
    case SearchOperator::Kind::kRange:
    case SearchOperator::Kind::kIn:
    case SearchOperator::Kind::kExists:
      scores = EvaluateValues(op, index, mapping);
      break;
    case SearchOperator::Kind::kNear:
      scores = EvaluateNear(op, index);
      break;
    case SearchOperator::Kind::kWildcard:
    case SearchOperator::Kind::kRegex:
      scores = EvaluatePatterns(op, index, mapping);
      break;
    case SearchOperator::Kind::kTermRange:
      scores = EvaluateTermRange(op, index, mapping);
      break;
    case SearchOperator::Kind::kEmbeddedDocument:
      scores = EvaluateEmbedded(op, index, mapping);
      break;
    case SearchOperator::Kind::kGeoWithin:
      scores = EvaluateGeoWithin(op, index);
      break;
    case SearchOperator::Kind::kMoreLikeThis:
      scores = EvaluateMoreLikeThis(op, index, mapping);
      break;
    case SearchOperator::Kind::kAllDocuments:
      // Every label the index has set; the caller drops those whose document is gone.
      for (std::uint32_t label = 0; label < index.LabelBound(); ++label) scores[label] = 1;
      break;
  }
  switch (op.score.kind) {
    case ScoreModifier::Kind::kComputed:
      break;
    case ScoreModifier::Kind::kBoost:
      for (auto& [label, score] : scores) score *= op.score.value;
      break;
    case ScoreModifier::Kind::kConstant:
      for (auto& [label, score] : scores) score = op.score.value;
      break;
    case ScoreModifier::Kind::kBoostByPath:
      if (!IndexedAsNumbers(op.score.path, mapping)) break;
      for (auto& [label, score] : scores) {
        score = NonNegative(score * NumberAt(index, label, op.score.path, op.score.value));
      }
      break;
    case ScoreModifier::Kind::kFunction:
      for (const std::string& path : op.score.function->Paths()) {
        if (!IndexedAsNumbers(path, mapping)) return {};
      }
      for (auto& [label, score] : scores) {
        const std::uint32_t of = label;  // Debian's clang cannot capture a structured binding
        score = op.score.function->Score(score, [&](const std::string& path, double undefined) {
          return NumberAt(index, of, path, undefined);
        });
      }
      break;
    case ScoreModifier::Kind::kDismax:  // applied by EvaluateCompound
      break;
  }
  return scores;
}

}  // namespace

namespace {

// BadValue naming the first multi analyzer `op` names that its field does not define.
Status CheckMultiPaths(const SearchOperator& op, const FullTextMapping& mapping) {
  for (const std::string& path : op.paths) {
    if (IsMultiPath(path) && !mapping.MayHoldStrings(path)) {
      const std::string_view field = std::string_view(path).substr(0, path.find('\0'));
      for (const auto& [embedded, inner] : mapping.embedded) {
        if (field.starts_with(embedded + ".")) {
          return Bad(QuotedPath(path) + " is a field of the embedded documents at \"" + embedded +
                     "\": search it inside embeddedDocument");
        }
      }
      return Bad("no multi analyzer " + QuotedPath(path) + " is mapped");
    }
  }
  for (const auto* clauses : {&op.must, &op.must_not, &op.should, &op.filter}) {
    for (const SearchOperator& clause : *clauses) {
      QUARRY_RETURN_IF_ERROR(CheckMultiPaths(clause, mapping));
    }
  }
  if (op.kind == SearchOperator::Kind::kEmbeddedDocument) {
    if (const FullTextMapping* inner = mapping.EmbeddedAt(op.paths.front())) {
      return CheckMultiPaths(op.inner.front(), *inner);
    }
  }
  return Status::OK();
}

}  // namespace

StatusWith<SearchScores> EvaluateSearch(const SearchOperator& op, const InvertedIndex& index,
                                        const FullTextMapping& mapping, const Interrupt* interrupt,
                                        const SynonymMaps* synonyms) {
  QUARRY_RETURN_IF_ERROR(CheckMultiPaths(op, mapping));
  evaluation_interrupt = interrupt;
  evaluation_synonyms = synonyms;
  evaluation_stop = Status::OK();
  SearchScores scores = Evaluate(op, index, mapping);
  evaluation_interrupt = nullptr;
  evaluation_synonyms = nullptr;
  if (!evaluation_stop.ok()) return std::exchange(evaluation_stop, Status::OK());
  return scores;
}

namespace {

void CollectSynonymMappings(const SearchOperator& op, std::vector<std::string>* out) {
  if (!op.synonyms.empty() && std::find(out->begin(), out->end(), op.synonyms) == out->end()) {
    out->push_back(op.synonyms);
  }
  for (const auto* clauses : {&op.must, &op.must_not, &op.should, &op.filter, &op.inner}) {
    for (const SearchOperator& clause : *clauses) CollectSynonymMappings(clause, out);
  }
}

}  // namespace

std::vector<std::string> SynonymMappingsOf(const SearchOperator& op) {
  std::vector<std::string> out;
  CollectSynonymMappings(op, &out);
  return out;
}

}  // namespace quarry::text
