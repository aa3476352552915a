// The full-text comparison as a whole: the same generated corpus loaded into Quarry and
// PostgreSQL, each one's full-text index built, the match counts of every query checked
// against the generator's, then each kind of query timed on each store in turn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bench/clients/latency.h"
#include "bench/fulltext/corpus.h"

namespace quarry::bench {

inline constexpr const char* kQuarrySystem = "Quarry";
inline constexpr const char* kPostgresSystem = "PostgreSQL";

// The parts, as the table's rows name them.
inline constexpr const char* kLoadPart = "load";
inline constexpr const char* kBuildPart = "index build";
inline constexpr const char* kLoadAndBuildPart = "load + build";
inline constexpr const char* kIndexMemoryPart = "memory: index";
inline constexpr const char* kTsvectorMemoryPart = "memory: tsv column";

struct FullTextSettings {
  std::string uri;              // Quarry
  std::string db = "fulltext";  // Quarry's database
  int postgres_port = 0;        // 127.0.0.1
  std::string postgres_user = "fulltext";
  CorpusSettings corpus;
  std::size_t batch = 1000;  // documents per insert_many, and per COPY message
  double seconds = 5;        // per query row
  // Each server's process, for its CPU time (a PostgreSQL server's with its backends') and, for
  // quarryd, its memory; 0: not measured.
  int server_pid = 0;    // quarryd
  int postgres_pid = 0;  // the postmaster
};

// One row: a part on one store.
struct PartResult {
  std::string part;      // kLoadPart, ..., "top 10: common word", "count: common word", ...
  std::string system;    // kQuarrySystem or kPostgresSystem
  std::int64_t ops = 0;  // documents (load, build) or queries
  double seconds = 0;
  bool has_latency = false;  // query rows: `latency` holds their percentiles
  LatencySummary latency;
  double server_cpu_seconds = -1;  // over the part; -1: not measured
  double client_cpu_seconds = -1;  // this process's, over the part; -1: not measured
  double matches_per_query = -1;   // the mean of the queries' match counts; -1: not a query row
  std::int64_t failed_checks = 0;
  std::int64_t bytes = -1;  // memory rows; -1: not measured

  double OpsPerSecond() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
};

// One query's match count, from the generator and from each store.
struct MatchCheck {
  std::string query;  // its words, space-separated
  std::int64_t expected = 0;
  std::int64_t quarry = 0;
  std::int64_t postgres = 0;

  bool Agrees() const { return quarry == expected && postgres == expected; }
};

// The timed query classes, in the order their rows come.
struct TimedClass {
  std::string part;  // "top 10: common word"
  QueryClass words;
  bool count = false;  // count the matches rather than take the top ten
  std::int64_t min_matches = 0;
  std::int64_t max_matches = 0;
};

struct FullTextResults {
  std::vector<PartResult> parts;
  std::vector<MatchCheck> checks;
  std::vector<TimedClass> classes;
  std::vector<std::string> words;  // the vocabulary, by word number
  std::size_t tokens = 0;          // words in the whole corpus
};

// Loads the corpus into both stores, builds both indexes, checks every query's match counts
// and times every query class on each store in turn. `progress` gets a line as each step ends.
// Fails on the first error of either store; mismatched counts are results, not errors.
StatusWith<FullTextResults> RunFullText(const FullTextSettings& settings,
                                        const std::function<void(const std::string&)>& progress);

}  // namespace quarry::bench
