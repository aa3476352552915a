// Ratios are computed per part (same documents, same queries), never across parts, and always as
// Quarry's rate over PostgreSQL's, so above 1 Quarry is faster.
#include "bench/fulltext/fulltext_table.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench/clients/verdict.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

// `seconds` of CPU over the part per operation, in microseconds; empty when not measured.
tc::Cell MicrosPerOp(double seconds, const PartResult& row) {
  if (seconds < 0 || row.ops <= 0) return {};
  return seconds * 1e6 / static_cast<double>(row.ops);
}

tc::Cell OrEmpty(bool present, double value) {
  if (!present) return {};
  return value;
}

const PartResult* RowOf(const FullTextResults& results, const std::string& part,
                        const std::string& system) {
  for (const PartResult& row : results.parts) {
    if (row.part == part && row.system == system) return &row;
  }
  return nullptr;
}

// A count with thousands separated: 100,000.
std::string WithCommas(std::int64_t value) {
  std::string digits = std::to_string(value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) {
    digits.insert(static_cast<std::size_t>(at), ",");
  }
  return digits;
}

// The class's queries and how many documents they match; `words` spells them.
std::string ClassNote(const TimedClass& timed, const std::vector<std::string>& words) {
  std::string queries;
  for (const std::vector<std::uint32_t>& query : timed.words.queries) {
    if (!queries.empty()) queries += ", ";
    for (std::size_t word_idx = 0; word_idx < query.size(); ++word_idx) {
      queries += (word_idx == 0 ? "" : " ") + words[query[word_idx]];
    }
  }
  return timed.part + ": " + timed.words.description + " (" + queries + "), " +
         WithCommas(timed.min_matches) + " to " + WithCommas(timed.max_matches) +
         " matching documents each.";
}

std::string MatchNote(const FullTextResults& results) {
  std::string mismatched;
  for (const MatchCheck& check : results.checks) {
    if (check.Agrees()) continue;
    mismatched += (mismatched.empty() ? "" : "; ") + check.query + ": generator " +
                  std::to_string(check.expected) + ", Quarry " + std::to_string(check.quarry) +
                  ", PostgreSQL " + std::to_string(check.postgres);
  }
  const std::string counted = std::to_string(results.checks.size()) +
                              " queries (every word and pair above), Quarry's $searchMeta "
                              "count.total, PostgreSQL's count(*) and the generator's own count";
  if (mismatched.empty()) return "match counts: for all " + counted + " agree.";
  return "match counts: MISMATCH for some of the " + counted + " (" + mismatched + ").";
}

}  // namespace

bool MatchCountsAgree(const FullTextResults& results) {
  return std::all_of(results.checks.begin(), results.checks.end(),
                     [](const MatchCheck& check) { return check.Agrees(); });
}

tc::ResultTable FullTextTable(const FullTextSettings& settings, const FullTextResults& results) {
  const CorpusSettings& corpus = settings.corpus;
  tc::ResultTable table;
  table.benchmark = "fulltext";
  table.title = "Full-text search: Quarry (Atlas Search, BM25) vs PostgreSQL 15 (tsvector, GIN)";
  char zipf[48];
  std::snprintf(zipf, sizeof zipf, "1 / (rank + 1)^%.2f", corpus.zipf_exponent);
  table.parameters = {{"documents", static_cast<std::int64_t>(corpus.documents)},
                      {"vocabulary", static_cast<std::int64_t>(corpus.vocabulary)},
                      {"words in corpus", static_cast<std::int64_t>(results.tokens)},
                      {"title words", std::to_string(corpus.min_title_words) + "-" +
                                          std::to_string(corpus.max_title_words)},
                      {"body words", std::to_string(corpus.min_body_words) + "-" +
                                         std::to_string(corpus.max_body_words)},
                      {"word weights", std::string(zipf)},
                      {"seed", static_cast<std::int64_t>(corpus.seed)},
                      {"batch", static_cast<std::int64_t>(settings.batch)},
                      {"seconds per query row", settings.seconds}};
  table.columns = {{"part", "part"},
                   {"system", "system"},
                   {"ops", "ops"},
                   {"seconds", "seconds", 2},
                   {"ops/s", "ops_per_second", 1},
                   {"p50 us", "p50_micros", 0},
                   {"p99 us", "p99_micros", 0},
                   {"server CPU us/op", "server_cpu_micros_per_op", 1},
                   {"client CPU us/op", "client_cpu_micros_per_op", 1},
                   {"matches/query", "matches_per_query", 0},
                   {"failed checks", "failed_checks"},
                   {"MB", "megabytes", 1},
                   {"vs PostgreSQL", "ratio_to_postgres", 2}};
  for (const PartResult& row : results.parts) {
    const bool memory = row.bytes >= 0 || row.part.rfind("memory", 0) == 0;
    tc::Cell ratio;
    if (row.system == kQuarrySystem && !memory) {
      const PartResult* postgres = RowOf(results, row.part, kPostgresSystem);
      if (postgres != nullptr && postgres->OpsPerSecond() > 0) {
        ratio = row.OpsPerSecond() / postgres->OpsPerSecond();
      }
    }
    if (memory) {
      table.rows.push_back({row.part,
                            row.system,
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            OrEmpty(row.bytes >= 0, static_cast<double>(row.bytes) / 1e6),
                            {}});
      continue;
    }
    table.rows.push_back({row.part,
                          row.system,
                          row.ops,
                          row.seconds,
                          row.OpsPerSecond(),
                          OrEmpty(row.has_latency, row.latency.p50_micros),
                          OrEmpty(row.has_latency, row.latency.p99_micros),
                          MicrosPerOp(row.server_cpu_seconds, row),
                          MicrosPerOp(row.client_cpu_seconds, row),
                          OrEmpty(row.matches_per_query >= 0, row.matches_per_query),
                          row.has_latency ? tc::Cell(row.failed_checks) : tc::Cell(),
                          {},
                          ratio});
  }
  table.notes = {
      "corpus: " + WithCommas(static_cast<std::int64_t>(corpus.documents)) +
          " documents {_id, title, body} of pseudo-words (lowercase ASCII letters, 2 to 4 "
          "syllables) drawn from " +
          WithCommas(static_cast<std::int64_t>(corpus.vocabulary)) +
          " with the weights above, the same in both stores.",
      "analysis: Quarry's index maps title and body as strings with lucene.whitespace "
      "(dynamic: false); PostgreSQL's tsv is to_tsvector('simple', title || ' ' || body). Both "
      "split at spaces and neither stems nor drops stop words, so each word is one token in both.",
      "load: Quarry insert_many of " + std::to_string(settings.batch) +
          " documents at a time (w:1); PostgreSQL one COPY sent " + std::to_string(settings.batch) +
          " rows at a time (synchronous_commit = off), whose generated column computes each "
          "row's tsvector as it loads. Quarry analyzes the text in its build instead, so "
          "`load + build` is the like-for-like total.",
      "index build: Quarry createSearchIndexes until $listSearchIndexes shows READY (polled "
      "every 5 ms), started once quarryd was idle after the load; PostgreSQL CREATE INDEX ... "
      "USING GIN (tsv) after a CHECKPOINT, with the default maintenance_work_mem. ANALYZE runs "
      "after it, untimed. ops is documents for load and build rows, queries for the rest.",
      "queries: one client thread for " + Fixed(settings.seconds, 1) +
          " s per row, cycling through the class's queries. Quarry: [{$search: {index: "
          "\"default\", text: {query, path: [\"title\", \"body\"]}}}, {$limit: 10}, {$project: "
          "{_id: 1, score: {$meta: \"searchScore\"}}}], a string of two words for the OR; count: "
          "$searchMeta with count: {type: \"total\"}. PostgreSQL, prepared: SELECT id, "
          "ts_rank(tsv, "
          "q) AS r FROM docs, to_tsquery('simple', $1) q WHERE tsv @@ q ORDER BY r DESC LIMIT "
          "10, with 'w1 | w2' for the OR; count: SELECT count(*) FROM docs WHERE tsv @@ "
          "to_tsquery('simple', $1).",
  };
  for (const TimedClass& timed : results.classes) {
    table.notes.push_back(ClassNote(timed, results.words));
  }
  table.notes.insert(
      table.notes.end(),
      {"ranking: Quarry scores by BM25 (term frequency, document frequency, field length); "
       "ts_rank weighs term frequency without document frequency, so the two top tens are "
       "mostly different documents: the rows compare the work of finding and ranking them.",
       "matches/query: the mean number of documents the row's queries match (each query's "
       "count from the generator).",
       "failed checks: answers that were wrong without being errors: a top 10 with other than "
       "min(10, matches) rows or with scores out of order, a count other than the generator's; "
       "should be 0.",
       "server CPU us/op: the server's CPU time over the row per document or query: quarryd's "
       "(all its threads) with --server-pid, the postmaster's and its backends' with "
       "--postgres-pid. client CPU us/op: this benchmark's (libmongoc or libpq, and the checks).",
       "vs PostgreSQL: Quarry's ops/s over PostgreSQL's in the same part (documents/s for load "
       "and build); above 1 Quarry is faster.",
       "memory rows measure different things and have no ratio: Quarry's is the growth of "
       "quarryd's resident memory (VmRSS) from before createSearchIndexes to READY, anything "
       "else it allocated meanwhile included, since its inverted index lives in memory; "
       "PostgreSQL's are sizes on disk, the GIN index (pg_relation_size) and the tsvector "
       "column it indexes (the sum of pg_column_size(tsv)), which sit in shared buffers and "
       "the page cache only as far as queries read them. MB = 10^6 bytes.",
       MatchNote(results)});
  return table;
}

}  // namespace quarry::bench
