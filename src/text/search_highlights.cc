#include "text/search_highlights.h"

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "bson/builder.h"
#include "text/edit_distance.h"
#include "text/icu_handles.h"

namespace quarry::text {
namespace {

// Lucene's passage scorer: BM25's saturation over the passage's length, against a pivot of 87
// characters, and a weight for passages that start early.
constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
constexpr double kPivot = 87;

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

// What a highlighted token must be: a term the query searched for, or within `max_edits` of it.
struct WantedTerm {
  std::string term;
  int max_edits = 0;
  std::size_t prefix_length = 0;
};

bool AnyPathMatches(const std::vector<std::string>& patterns, std::string_view path) {
  if (IsMultiPath(path)) return false;  // highlights name the fields' own analysis
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return PathMatchesPattern(pattern, path); });
}

// The terms the operators of `op` (outside mustNot) searched for on `path`.
void CollectTerms(const SearchOperator& op, const FullTextMapping& mapping, std::string_view path,
                  std::vector<WantedTerm>* out) {
  switch (op.kind) {
    case SearchOperator::Kind::kText:
    case SearchOperator::Kind::kPhrase: {
      if (!AnyPathMatches(op.paths, path)) return;
      const SearchAnalyzer& analyzer = mapping.SearchAnalyzerFor(path);
      for (const std::string& query : op.queries) {
        analyzer.Analyze(query, [&](std::string_view term, std::uint32_t) {
          WantedTerm wanted{.term = std::string(term), .max_edits = 0, .prefix_length = 0};
          if (op.fuzzy.has_value()) {
            wanted.max_edits = op.fuzzy->max_edits;
            wanted.prefix_length = op.fuzzy->prefix_length;
          }
          out->push_back(std::move(wanted));
        });
      }
      return;
    }
    case SearchOperator::Kind::kCompound:
      for (const auto* clauses : {&op.must, &op.should, &op.filter}) {
        for (const SearchOperator& clause : *clauses) CollectTerms(clause, mapping, path, out);
      }
      return;
    case SearchOperator::Kind::kEmbeddedDocument:
      // Its operator's paths are analyzed as the sub-documents' mapping says.
      if (const FullTextMapping* inner = mapping.EmbeddedAt(op.paths.front())) {
        CollectTerms(op.inner.front(), *inner, path, out);
      }
      return;
    default:
      return;
  }
}

bool IsWanted(std::string_view term, const std::vector<WantedTerm>& wanted) {
  for (const WantedTerm& w : wanted) {
    if (w.term == term) return true;
    if (w.max_edits == 0) continue;
    const std::vector<char32_t> a = CodePointsOf(w.term), b = CodePointsOf(term);
    const auto prefix = static_cast<std::ptrdiff_t>(std::min(w.prefix_length, a.size()));
    if (static_cast<std::ptrdiff_t>(b.size()) < prefix ||
        !std::equal(a.begin(), a.begin() + prefix, b.begin())) {
      continue;
    }
    if (EditDistance(a, b, w.max_edits) <= w.max_edits) return true;
  }
  return false;
}

struct Hit {
  std::size_t start, end;
  std::string term;
};

struct Passage {
  std::size_t start, end;
  std::vector<Hit> hits;
  double score = 0;
};

// The sentences of `value`, as byte ranges.
std::vector<std::pair<std::size_t, std::size_t>> Sentences(std::string_view value) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  UErrorCode status = U_ZERO_ERROR;
  UTextPtr text(
      utext_openUTF8(nullptr, value.data(), static_cast<std::int64_t>(value.size()), &status));
  thread_local BreakIteratorPtr sentences(ubrk_open(UBRK_SENTENCE, "", nullptr, 0, &status));
  if (U_FAILURE(status) || sentences == nullptr) return {{0, value.size()}};
  ubrk_setUText(sentences.get(), text.get(), &status);
  if (U_FAILURE(status)) return {{0, value.size()}};
  std::int32_t start = ubrk_first(sentences.get());
  for (std::int32_t end = ubrk_next(sentences.get()); end != UBRK_DONE;
       start = end, end = ubrk_next(sentences.get())) {
    out.emplace_back(static_cast<std::size_t>(start), static_cast<std::size_t>(end));
  }
  return out;
}

double PassageScore(const Passage& passage) {
  std::map<std::string, int> frequencies;
  for (const Hit& hit : passage.hits) ++frequencies[hit.term];
  const double length = static_cast<double>(passage.end - passage.start);
  double score = 0;
  for (const auto& [term, frequency] : frequencies) {
    const double f = frequency;
    score += f * (kK1 + 1) / (f + kK1 * (1 - kB + kB * length / kPivot));
  }
  return score * (1 + 1 / std::log(kPivot + static_cast<double>(passage.start)));
}

// The passages of one value that hold hits, scored.
std::vector<Passage> PassagesOf(std::string_view value, const SearchAnalyzer& analyzer,
                                const std::vector<WantedTerm>& wanted) {
  std::vector<Hit> hits;
  analyzer.AnalyzeWithOffsets(
      value, [&](std::string_view term, std::uint32_t, std::size_t start, std::size_t end) {
        if (IsWanted(term, wanted)) hits.push_back({start, end, std::string(term)});
      });
  if (hits.empty()) return {};
  std::vector<Passage> passages;
  std::size_t next_hit = 0;
  for (const auto& [start, end] : Sentences(value)) {
    Passage passage{.start = start, .end = end, .hits = {}, .score = 0};
    while (next_hit < hits.size() && hits[next_hit].start < end) {
      passage.hits.push_back(hits[next_hit++]);
    }
    if (passage.hits.empty()) continue;
    // A sentence's trailing white space is no part of its text.
    while (passage.end > passage.start &&
           (value[passage.end - 1] == ' ' || value[passage.end - 1] == '\n' ||
            value[passage.end - 1] == '\t')) {
      --passage.end;
    }
    passage.score = PassageScore(passage);
    passages.push_back(std::move(passage));
  }
  return passages;
}

bson::Document TextsOf(std::string_view value, const Passage& passage) {
  bson::ArrayBuilder texts;
  auto append = [&](std::size_t start, std::size_t end, std::string_view type) {
    if (end <= start) return;
    bson::DocumentBuilder part;
    part.AppendString("value", value.substr(start, end - start));
    part.AppendString("type", type);
    texts.AppendDocument(std::move(part).Finish().view());
  };
  std::size_t at = passage.start;
  for (const Hit& hit : passage.hits) {
    append(at, hit.start, "text");
    append(hit.start, std::min(hit.end, passage.end), "hit");
    at = hit.end;
  }
  append(at, passage.end, "text");
  return std::move(texts).Finish();
}

// A string cut to at most `max` bytes, at a character's start.
std::string_view Examined(std::string_view value, std::size_t max) {
  if (value.size() <= max) return value;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return value.substr(0, cut);
}

}  // namespace

StatusWith<HighlightSpec> ParseHighlight(bson::ValueView spec) {
  if (spec.type() != bson::Type::kDocument) return Bad("$search.highlight must be a document");
  HighlightSpec out;
  for (const bson::Element& e : spec.Document()) {
    if (e.key == "path") {
      QUARRY_ASSIGN_OR_RETURN(out.paths, ParseSearchPaths(e.value, "highlight.path", true));
      for (const std::string& path : out.paths) {
        if (IsMultiPath(path)) {
          return Status(ErrorCode::kNotImplemented,
                        "\"highlight.path\" with a multi analyzer is not supported by Quarry yet");
        }
      }
    } else if (e.key == "maxCharsToExamine" || e.key == "maxNumPassages") {
      if (!e.value.IsNumber() || !(e.value.AsDouble() >= 1)) {
        return Bad("\"highlight." + std::string(e.key) + "\" must be a positive integer");
      }
      (e.key == "maxNumPassages" ? out.max_passages : out.max_chars_to_examine) =
          static_cast<std::size_t>(std::min(e.value.AsDouble(), 1e12));
    } else {
      return Bad("\"highlight." + std::string(e.key) + "\" is not a known option");
    }
  }
  if (out.paths.empty()) return Bad("\"highlight.path\" is required");
  return out;
}

bson::Document Highlights(const SearchOperator& op, const FullTextMapping& mapping,
                          const HighlightSpec& spec, bson::DocumentView document) {
  std::map<std::string, std::vector<WantedTerm>> wanted_at;  // path -> what it highlights
  bson::ArrayBuilder out;
  struct Found {
    std::string path;
    std::string_view value;
    Passage passage;
  };
  std::vector<Found> found;
  auto on_string = [&](const std::string& path, std::string_view value,
                       const SearchAnalyzer& analyzer) {
    if (!AnyPathMatches(spec.paths, path)) return;
    auto wanted = wanted_at.find(path);
    if (wanted == wanted_at.end()) {
      wanted = wanted_at.emplace(path, std::vector<WantedTerm>()).first;
      CollectTerms(op, mapping, path, &wanted->second);
    }
    if (wanted->second.empty()) return;
    const std::string_view examined = Examined(value, spec.max_chars_to_examine);
    for (Passage& passage : PassagesOf(examined, analyzer, wanted->second)) {
      found.push_back({path, examined, std::move(passage)});
    }
  };
  // The document's strings, then those of its embedded documents (and theirs) by their mappings.
  std::function<void(const FullTextMapping&, bson::DocumentView)> walk =
      [&](const FullTextMapping& at, bson::DocumentView holder) {
        at.ForEachString(holder, on_string);
        at.ForEachEmbedded(holder, [&](const std::string& path, bson::DocumentView element) {
          if (const FullTextMapping* inner = at.EmbeddedAt(path)) walk(*inner, element);
        });
      };
  walk(mapping, document);
  // Per path, its best passages; the paths in the order the document first holds them.
  std::vector<std::string> paths;
  for (const Found& f : found) {
    if (std::find(paths.begin(), paths.end(), f.path) == paths.end()) paths.push_back(f.path);
  }
  for (const std::string& path : paths) {
    std::vector<const Found*> ranked;
    for (const Found& f : found) {
      if (f.path == path) ranked.push_back(&f);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const Found* a, const Found* b) {
      return a->passage.score > b->passage.score;
    });
    if (ranked.size() > spec.max_passages) ranked.resize(spec.max_passages);
    for (const Found* f : ranked) {
      bson::DocumentBuilder highlight;
      highlight.AppendString("path", f->path);
      highlight.AppendArray("texts", TextsOf(f->value, f->passage).view());
      highlight.AppendDouble("score", f->passage.score);
      out.AppendDocument(std::move(highlight).Finish().view());
    }
  }
  return std::move(out).Finish();
}

}  // namespace quarry::text
