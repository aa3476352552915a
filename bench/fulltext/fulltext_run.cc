// The stores take turns part by part (both loads, both builds, then each query row on Quarry and
// then on PostgreSQL), so the two numbers of a row are measured seconds apart on a machine whose
// load drifts.
#include "bench/fulltext/fulltext_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>

#include "bench/clients/process_cpu.h"
#include "bench/clients/process_memory.h"
#include "bench/clients/timed_clients.h"
#include "bench/fulltext/search_session.h"

namespace quarry::bench {
namespace {

using Clock = std::chrono::steady_clock;

// How long the server may take to go quiet after a load before its build is timed anyway.
constexpr double kIdleWaitSeconds = 60;
constexpr std::int64_t kTopLimit = 10;

struct Store {
  std::string shown;
  SessionConnector connect;
  int pid = 0;  // whose CPU time a part counts; 0: none
};

// A query with the count it must match, as one store spells it.
struct PreparedQuery {
  std::string text;
  std::int64_t expected = 0;
};

// Runs one query after another from the class's set, in turn, checking each answer, on a
// session it does not own.
class QueryClient : public TimedClient {
 public:
  QueryClient(SearchSession* session, std::vector<PreparedQuery> queries, bool count,
              std::int64_t* failed_checks)
      : session_(session),
        queries_(std::move(queries)),
        count_(count),
        failed_checks_(failed_checks) {}

  StatusWith<bool> RunOnce(std::mt19937_64&) override {
    if (queries_.empty()) return false;
    const PreparedQuery& query = queries_[next_++ % queries_.size()];
    bool passed;
    if (count_) {
      QUARRY_ASSIGN_OR_RETURN(std::int64_t matches, session_->CountMatches(query.text));
      passed = matches == query.expected;
    } else {
      QUARRY_ASSIGN_OR_RETURN(TopTen top, session_->SearchTopTen(query.text));
      passed = static_cast<std::int64_t>(top.rows) == std::min(kTopLimit, query.expected) &&
               top.scores_descending;
    }
    if (!passed) ++*failed_checks_;
    return true;
  }

 private:
  SearchSession* session_;
  std::vector<PreparedQuery> queries_;
  bool count_;
  std::int64_t* failed_checks_;  // one client thread: no other writer
  std::size_t next_ = 0;
};

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Times `step` on `store`, with the server's CPU time and this process's.
template <typename Step>
StatusWith<PartResult> MeasureStep(const Store& store, const std::string& part, std::int64_t ops,
                                   Step step) {
  const double server_before = store.pid != 0 ? ProcessTreeCpuSeconds(store.pid) : -1;
  const double own_before = OwnCpuSeconds();
  const Clock::time_point start = Clock::now();
  QUARRY_RETURN_IF_ERROR(step());
  PartResult result;
  result.seconds = SecondsSince(start);
  result.client_cpu_seconds = OwnCpuSeconds() - own_before;
  const double server_after = store.pid != 0 ? ProcessTreeCpuSeconds(store.pid) : -1;
  if (server_before >= 0 && server_after >= 0) {
    result.server_cpu_seconds = server_after - server_before;
  }
  result.part = part;
  result.system = store.shown;
  result.ops = ops;
  return result;
}

std::string Describe(const PartResult& row) {
  char text[200];
  if (row.has_latency) {
    std::snprintf(
        text, sizeof text, "%s, %s: %.1f queries/s, p50 %.0f us, p99 %.0f us, %lld failed",
        row.system.c_str(), row.part.c_str(), row.latency.ops_per_second, row.latency.p50_micros,
        row.latency.p99_micros, static_cast<long long>(row.failed_checks));
  } else {
    std::snprintf(text, sizeof text, "%s, %s: %.2f s", row.system.c_str(), row.part.c_str(),
                  row.seconds);
  }
  return text;
}

TimedClass ClassOf(const std::string& part, QueryClass words, bool count, const Corpus& corpus) {
  TimedClass timed{part, std::move(words), count, std::numeric_limits<std::int64_t>::max(), 0};
  for (const std::vector<std::uint32_t>& query : timed.words.queries) {
    const auto matches = static_cast<std::int64_t>(corpus.DocumentsHoldingAny(query));
    timed.min_matches = std::min(timed.min_matches, matches);
    timed.max_matches = std::max(timed.max_matches, matches);
  }
  return timed;
}

StatusWith<PartResult> TimeQueries(const FullTextSettings& settings, const Store& store,
                                   const TimedClass& timed, const Corpus& corpus) {
  std::vector<std::int64_t> expected;
  double matches = 0;
  for (const std::vector<std::uint32_t>& words : timed.words.queries) {
    expected.push_back(static_cast<std::int64_t>(corpus.DocumentsHoldingAny(words)));
    matches += static_cast<double>(expected.back());
  }
  // Connected, and its queries spelled, before the clock starts; and closed only after the
  // row's CPU time is read, since a PostgreSQL backend caught exiting as /proc is read can show
  // none of the time it used.
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> session, store.connect());
  std::vector<PreparedQuery> queries;
  for (std::size_t query_idx = 0; query_idx < expected.size(); ++query_idx) {
    queries.push_back(
        {session->QueryText(corpus, timed.words.queries[query_idx]), expected[query_idx]});
  }
  std::int64_t failed_checks = 0;
  ClientFactory make = [&]() -> StatusWith<std::unique_ptr<TimedClient>> {
    return std::unique_ptr<TimedClient>(
        std::make_unique<QueryClient>(session.get(), queries, timed.count, &failed_checks));
  };
  QUARRY_ASSIGN_OR_RETURN(MeasuredRow row,
                          RunTimedClientsMeasuringCpu(make, 1, settings.seconds, store.pid));
  PartResult result;
  result.part = timed.part;
  result.system = store.shown;
  result.ops = row.latency.ops;
  result.seconds = row.latency.ops_per_second > 0
                       ? static_cast<double>(row.latency.ops) / row.latency.ops_per_second
                       : 0;
  result.has_latency = true;
  result.latency = row.latency;
  result.server_cpu_seconds = row.cpu_seconds;
  result.client_cpu_seconds = row.client_cpu_seconds;
  result.matches_per_query = expected.empty() ? 0 : matches / static_cast<double>(expected.size());
  result.failed_checks = failed_checks;
  return result;
}

PartResult Sum(const PartResult& load, const PartResult& build) {
  PartResult sum = load;
  sum.part = kLoadAndBuildPart;
  sum.seconds = load.seconds + build.seconds;
  sum.server_cpu_seconds = load.server_cpu_seconds >= 0 && build.server_cpu_seconds >= 0
                               ? load.server_cpu_seconds + build.server_cpu_seconds
                               : -1;
  sum.client_cpu_seconds = load.client_cpu_seconds + build.client_cpu_seconds;
  return sum;
}

PartResult MemoryRow(const std::string& part, const std::string& system, std::int64_t bytes) {
  PartResult row;
  row.part = part;
  row.system = system;
  row.bytes = bytes;
  return row;
}

}  // namespace

StatusWith<FullTextResults> RunFullText(const FullTextSettings& settings,
                                        const std::function<void(const std::string&)>& progress) {
  const Clock::time_point generating = Clock::now();
  const Corpus corpus(settings.corpus);
  const QueryWords words = ChooseQueryWords(corpus);
  FullTextResults results;
  results.words = corpus.words();
  results.tokens = corpus.TokenCount();
  results.classes = {ClassOf("top 10: common word", words.common, false, corpus),
                     ClassOf("top 10: mid word", words.mid, false, corpus),
                     ClassOf("top 10: rare word", words.rare, false, corpus),
                     ClassOf("top 10: two mid words OR'd", words.pairs, false, corpus),
                     ClassOf("count: common word", words.common, true, corpus)};
  char generated[160];
  std::snprintf(generated, sizeof generated, "generated %zu documents (%zu words) in %.1f s",
                corpus.documents().size(), corpus.TokenCount(), SecondsSince(generating));
  progress(generated);

  const Store quarry{kQuarrySystem,
                     [&settings] { return ConnectQuarrySearch(settings.uri, settings.db); },
                     settings.server_pid};
  const Store postgres{
      kPostgresSystem,
      [&settings] { return ConnectPostgresSearch(settings.postgres_port, settings.postgres_user); },
      settings.postgres_pid};
  const auto documents = static_cast<std::int64_t>(corpus.documents().size());

  // Loads.
  std::vector<std::unique_ptr<SearchSession>> admins;
  std::vector<PartResult> loads;
  for (const Store* store : {&quarry, &postgres}) {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> admin, store->connect());
    QUARRY_RETURN_IF_ERROR(admin->PrepareLoad(corpus, settings.batch));
    QUARRY_ASSIGN_OR_RETURN(
        PartResult load, MeasureStep(*store, kLoadPart, documents, [&] { return admin->Load(); }));
    progress(Describe(load));
    loads.push_back(load);
    admins.push_back(std::move(admin));
  }

  // Builds, each starting with its server quiet: quarryd done with the load's flushes and
  // compactions, PostgreSQL's dirty pages written by a checkpoint.
  WaitUntilIdle(quarry.pid, kIdleWaitSeconds);
  const std::int64_t rss_before = ResidentBytes(quarry.pid);
  QUARRY_ASSIGN_OR_RETURN(PartResult quarry_build, MeasureStep(quarry, kBuildPart, documents, [&] {
                            return admins[0]->BuildIndex();
                          }));
  const std::int64_t rss_after = ResidentBytes(quarry.pid);
  progress(Describe(quarry_build));
  QUARRY_RETURN_IF_ERROR(
      PostgresExecute(settings.postgres_port, settings.postgres_user, "CHECKPOINT"));
  QUARRY_ASSIGN_OR_RETURN(
      PartResult postgres_build,
      MeasureStep(postgres, kBuildPart, documents, [&] { return admins[1]->BuildIndex(); }));
  progress(Describe(postgres_build));
  // The planner's statistics, as a table that has been in use would have them.
  QUARRY_RETURN_IF_ERROR(
      PostgresExecute(settings.postgres_port, settings.postgres_user, "ANALYZE docs"));
  const std::vector<PartResult> builds = {quarry_build, postgres_build};
  for (const PartResult& load : loads) results.parts.push_back(load);
  for (const PartResult& build : builds) results.parts.push_back(build);
  for (std::size_t store_idx = 0; store_idx < loads.size(); ++store_idx) {
    results.parts.push_back(Sum(loads[store_idx], builds[store_idx]));
  }

  // Every query's match count from both stores against the generator's.
  std::vector<std::vector<std::uint32_t>> checked;
  for (const TimedClass& timed : results.classes) {
    for (const std::vector<std::uint32_t>& query : timed.words.queries) {
      if (std::find(checked.begin(), checked.end(), query) != checked.end()) continue;
      checked.push_back(query);
      MatchCheck check;
      check.query = JoinWords(corpus, query, " ");
      check.expected = static_cast<std::int64_t>(corpus.DocumentsHoldingAny(query));
      QUARRY_ASSIGN_OR_RETURN(check.quarry,
                              admins[0]->CountMatches(admins[0]->QueryText(corpus, query)));
      QUARRY_ASSIGN_OR_RETURN(check.postgres,
                              admins[1]->CountMatches(admins[1]->QueryText(corpus, query)));
      results.checks.push_back(check);
    }
  }
  const auto agreed = std::count_if(results.checks.begin(), results.checks.end(),
                                    [](const MatchCheck& check) { return check.Agrees(); });
  progress("match counts agree for " + std::to_string(agreed) + " of " +
           std::to_string(results.checks.size()) + " queries");

  // The query rows, after quarryd has finished whatever the build left behind.
  WaitUntilIdle(quarry.pid, kIdleWaitSeconds);
  for (const TimedClass& timed : results.classes) {
    for (const Store* store : {&quarry, &postgres}) {
      QUARRY_ASSIGN_OR_RETURN(PartResult row, TimeQueries(settings, *store, timed, corpus));
      progress(Describe(row));
      results.parts.push_back(row);
    }
  }

  QUARRY_ASSIGN_OR_RETURN(PostgresSearchSizes sizes,
                          PostgresSizes(settings.postgres_port, settings.postgres_user));
  results.parts.push_back(
      MemoryRow(kIndexMemoryPart, kQuarrySystem,
                rss_before >= 0 && rss_after >= 0 ? rss_after - rss_before : -1));
  results.parts.push_back(MemoryRow(kIndexMemoryPart, kPostgresSystem, sizes.index_bytes));
  results.parts.push_back(MemoryRow(kTsvectorMemoryPart, kPostgresSystem, sizes.tsvector_bytes));
  return results;
}

}  // namespace quarry::bench
