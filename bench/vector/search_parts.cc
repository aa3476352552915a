// Parts 1-3: approximate, filtered and exact $vectorSearch against their in-process baselines.
#include <algorithm>

#include "bench/clients/verdict.h"
#include "bench/vector/parts.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

ServerTarget TargetOf(const VectorBenchSettings& settings) {
  return {.uri = settings.uri,
          .db = settings.db,
          .collection = settings.collection,
          .server_pid = settings.server_pid};
}

std::vector<std::pair<std::string, tc::Cell>> Parameters(const VectorBenchSettings& settings,
                                                         std::size_t queries) {
  return {
      {"vectors", static_cast<std::int64_t>(settings.vectors)},
      {"dimensions", static_cast<std::int64_t>(settings.dimensions)},
      {"queries", static_cast<std::int64_t>(queries)},
      {"k", static_cast<std::int64_t>(settings.k)},
      {"similarity", std::string("cosine")},
      {"M / maxEdges", static_cast<std::int64_t>(settings.max_edges)},
      {"efConstruction / numEdgeCandidates", static_cast<std::int64_t>(settings.ef_construction)}};
}

double Rate(std::size_t queries, double seconds) { return static_cast<double>(queries) / seconds; }

// CPU microseconds per query answered; an empty cell when not measured (< 0).
tc::Cell MicrosPerQuery(double cpu_seconds, const SearchRun& run) {
  if (cpu_seconds < 0 || run.queries == 0) return tc::Cell();
  return cpu_seconds * 1e6 / static_cast<double>(run.queries);
}

// Of `repeat` runs of `search`, the one with the median time: on a shared machine one run can
// lose the core for a while.
template <typename Search>
StatusWith<SearchRun> MedianRun(int repeat, Search search) {
  std::vector<SearchRun> runs;
  for (int run_idx = 0; run_idx < repeat; ++run_idx) {
    StatusWith<SearchRun> run = search();
    QUARRY_RETURN_IF_ERROR(run.status());
    runs.push_back(std::move(run).value());
  }
  std::sort(runs.begin(), runs.end(),
            [](const SearchRun& a, const SearchRun& b) { return a.seconds < b.seconds; });
  return std::move(runs[runs.size() / 2]);
}

}  // namespace

BenchData MakeBenchData(const VectorBenchSettings& settings) {
  BenchData data;
  data.vectors = MakeClusteredVectors(settings.vectors, settings.dimensions, {}, /*stream=*/0);
  data.queries = MakeClusteredVectors(settings.queries, settings.dimensions, {}, /*stream=*/1);
  for (std::size_t query = 0; query < data.queries.size(); ++query) {
    data.truth.push_back(ExactTopK(data.vectors, data.queries.Vector(query), settings.k));
  }
  data.documents = VectorDocuments(data.vectors);
  return data;
}

StatusWith<tc::ResultTable> SearchPart(const VectorBenchSettings& settings, const BenchData& data,
                                       HnswlibBaseline& hnswlib, const InProcessIndex& in_process,
                                       std::size_t* chosen) {
  tc::ResultTable table;
  table.benchmark = "vector_search";
  table.title =
      "$vectorSearch through the wire and Quarry's VectorIndex in-process vs hnswlib "
      "in-process (same M, efConstruction, ef = numCandidates)";
  table.parameters = Parameters(settings, data.queries.size());
  table.columns = {{"engine", "engine"},
                   {"threads", "threads"},
                   {"numCandidates / ef", "num_candidates"},
                   {"seconds", "seconds", 2},
                   {"queries/s", "queries_per_second", 0},
                   {"recall@10", "recall", 4},
                   {"vs hnswlib", "ratio_to_hnswlib", 2},
                   {"CPU us/query here", "own_cpu_us_per_query", 1},
                   {"server CPU us/query", "server_cpu_us_per_query", 1}};
  const std::size_t count = data.queries.size();
  *chosen = settings.candidates.back();
  bool found = false;
  double single_baseline_rate = 0;  // hnswlib's queries/s, 1 thread, at the last numCandidates
  auto add_pair = [&](std::size_t candidates, int threads) -> StatusWith<double> {
    QUARRY_ASSIGN_OR_RETURN(SearchRun server, MedianRun(settings.repeat, [&] {
                              return ServerSearch(
                                  TargetOf(settings), data.queries, count,
                                  {.limit = settings.k, .num_candidates = candidates}, threads,
                                  settings.min_seconds);
                            }));
    QUARRY_ASSIGN_OR_RETURN(
        SearchRun baseline, MedianRun(settings.repeat, [&] {
          return StatusWith<SearchRun>(
              hnswlib.Search(data.queries, settings.k, candidates, threads, settings.min_seconds));
        }));
    QUARRY_ASSIGN_OR_RETURN(
        SearchRun index, MedianRun(settings.repeat, [&] {
          return StatusWith<SearchRun>(in_process.Search(data.queries, settings.k, candidates,
                                                         threads, settings.min_seconds));
        }));
    const double ratio = server.QueriesPerSecond() / baseline.QueriesPerSecond();
    if (threads == 1) single_baseline_rate = baseline.QueriesPerSecond();
    const double recall = MeanRecall(server.answers, data.truth);
    table.rows.push_back({std::string("Quarry $vectorSearch"), static_cast<std::int64_t>(threads),
                          static_cast<std::int64_t>(candidates), server.seconds,
                          server.QueriesPerSecond(), recall, ratio,
                          MicrosPerQuery(server.own_cpu_seconds, server),
                          MicrosPerQuery(server.server_cpu_seconds, server)});
    table.rows.push_back({std::string("Quarry VectorIndex in-process"),
                          static_cast<std::int64_t>(threads), static_cast<std::int64_t>(candidates),
                          index.seconds, index.QueriesPerSecond(),
                          MeanRecall(index.answers, data.truth),
                          index.QueriesPerSecond() / baseline.QueriesPerSecond(),
                          MicrosPerQuery(index.own_cpu_seconds, index), tc::Cell()});
    table.rows.push_back({std::string("hnswlib 0.6.2"), static_cast<std::int64_t>(threads),
                          static_cast<std::int64_t>(candidates), baseline.seconds,
                          baseline.QueriesPerSecond(), MeanRecall(baseline.answers, data.truth),
                          tc::Cell(), MicrosPerQuery(baseline.own_cpu_seconds, baseline),
                          tc::Cell()});
    if (threads == 1 && !found && recall >= kMinRecall) {
      found = true;
      *chosen = candidates;
    }
    return ratio;
  };
  double single_ratio = 0;
  for (std::size_t candidates : settings.candidates) {
    QUARRY_ASSIGN_OR_RETURN(double ratio, add_pair(candidates, 1));
    single_ratio = ratio;
    if (found) break;
  }
  QUARRY_ASSIGN_OR_RETURN(double multi_ratio, add_pair(*chosen, settings.threads));
  QUARRY_ASSIGN_OR_RETURN(
      SearchRun reading, MedianRun(settings.repeat, [&] {
        return ServerSearch(
            TargetOf(settings), data.queries, count,
            {.limit = settings.k, .num_candidates = *chosen, .read_documents = true}, 1,
            settings.min_seconds);
      }));
  table.rows.push_back({std::string("Quarry $vectorSearch, reading the documents"), std::int64_t{1},
                        static_cast<std::int64_t>(*chosen), reading.seconds,
                        reading.QueriesPerSecond(), MeanRecall(reading.answers, data.truth),
                        reading.QueriesPerSecond() / single_baseline_rate,
                        MicrosPerQuery(reading.own_cpu_seconds, reading),
                        MicrosPerQuery(reading.server_cpu_seconds, reading)});
  QUARRY_ASSIGN_OR_RETURN(double ping_seconds, ServerPings(TargetOf(settings), count));
  table.rows.push_back({std::string("Quarry ping (round-trip floor)"), std::int64_t{1}, tc::Cell(),
                        ping_seconds, Rate(count, ping_seconds), tc::Cell(), tc::Cell(), tc::Cell(),
                        tc::Cell()});
  table.notes.push_back(
      found ? "numCandidates " + std::to_string(*chosen) +
                  ": the smallest tried that reaches recall@10 >= " + Fixed(kMinRecall, 2)
            : "no numCandidates tried reaches recall@10 >= " + Fixed(kMinRecall, 2) +
                  "; the largest, " + std::to_string(*chosen) + ", is used below");
  table.notes.push_back(
      "target: >= " + Fixed(kMinShareOfHnswlib, 2) + " of hnswlib's queries/s at numCandidates " +
      std::to_string(*chosen) + ": 1 thread " + Fixed(single_ratio, 2) + ", " +
      Verdict(single_ratio >= kMinShareOfHnswlib) + "; " + std::to_string(settings.threads) +
      " threads " + Fixed(multi_ratio, 2) + ", " + Verdict(multi_ratio >= kMinShareOfHnswlib));
  table.notes.push_back(
      "Quarry $vectorSearch: one libmongoc client per thread, aggregate [$vectorSearch, "
      "$project {_id: 1}], each query a round trip over loopback; the server answers it from the "
      "index, without reading the documents. The row reading the documents projects "
      "{_id: 1, bucket: 1} instead, which reads each match's record (its embedding included). "
      "Quarry VectorIndex: the "
      "server's index class called in this process (its graph is hnswlib's, its search loop "
      "Quarry's), so the gap to the $vectorSearch row is the wire's cost. hnswlib: searchKnn in "
      "this process, "
      "InnerProductSpace on the same unit vectors, built with -march=native (its SIMD distance is "
      "chosen at compile time; the server picks AVX-512 or AVX2+FMA at run time). Recall against "
      "exact brute "
      "force. CPU us/query here: this process's CPU per query, the clients' for the "
      "$vectorSearch rows and the engine's for the in-process ones; server CPU us/query: the "
      "server's (from /proc, when --server-pid is given). On a machine with fewer cores than "
      "client threads plus the server's, the clients' CPU is taken from the server's. "
      "Each row is the median of " +
      std::to_string(settings.repeat) + " runs, each cycling through the queries for at least " +
      Fixed(settings.min_seconds, 1) + " s.");
  return table;
}

StatusWith<tc::ResultTable> FilteredPart(const VectorBenchSettings& settings, const BenchData& data,
                                         std::size_t num_candidates) {
  tc::ResultTable table;
  table.benchmark = "vector_search_filtered";
  table.title = "$vectorSearch with a pre-filter vs filtered brute force";
  table.parameters = Parameters(settings, data.queries.size());
  table.parameters.emplace_back("numCandidates", static_cast<std::int64_t>(num_candidates));
  table.columns = {{"filter", "filter"},
                   {"selectivity %", "selectivity_percent"},
                   {"matching vectors", "matching"},
                   {"seconds", "seconds", 2},
                   {"queries/s", "queries_per_second", 0},
                   {"recall@10", "recall", 4},
                   {"target recall >= 0.95", "target"}};
  const std::size_t count = data.queries.size();
  for (int max_bucket : {1, 10, 50}) {
    const BucketFilter filter{.max_bucket = max_bucket};
    std::vector<std::vector<std::uint32_t>> truth;
    for (std::size_t query = 0; query < count; ++query) {
      truth.push_back(ExactTopK(data.vectors, data.queries.Vector(query), settings.k, filter));
    }
    std::int64_t matching = 0;
    for (int bucket : data.vectors.buckets) matching += filter.Admits(bucket);
    QUARRY_ASSIGN_OR_RETURN(
        SearchRun server,
        ServerSearch(TargetOf(settings), data.queries, count,
                     {.limit = settings.k, .num_candidates = num_candidates, .filter = filter}, 1));
    const double recall = MeanRecall(server.answers, truth);
    table.rows.push_back({"{bucket: {$lt: " + std::to_string(max_bucket) + "}}",
                          static_cast<std::int64_t>(max_bucket * 100 / kBuckets), matching,
                          server.seconds, server.QueriesPerSecond(), recall,
                          Verdict(recall >= kMinRecall)});
  }
  table.notes.push_back(
      "One client thread, one run. bucket is uniform over 0..99, independent of the clusters; the "
      "filter field is declared in the index. Recall against brute force over the matching "
      "vectors.");
  return table;
}

StatusWith<tc::ResultTable> ExactPart(const VectorBenchSettings& settings, const BenchData& data) {
  const std::size_t count = std::min(settings.exact_queries, data.queries.size());
  tc::ResultTable table;
  table.benchmark = "vector_search_exact";
  table.title = "$vectorSearch exact: true through the wire vs a flat scan in-process";
  table.parameters = Parameters(settings, count);
  table.columns = {{"engine", "engine"},       {"queries", "queries"},
                   {"seconds", "seconds", 2},  {"ms per query", "milliseconds_per_query", 2},
                   {"recall@10", "recall", 4}, {"vs flat scan", "ratio_to_flat_scan", 2}};
  QUARRY_ASSIGN_OR_RETURN(SearchRun server, ServerSearch(TargetOf(settings), data.queries, count,
                                                         {.limit = settings.k, .exact = true}, 1));
  const SearchRun flat = FlatScan(data.vectors, data.queries, count, settings.k);
  const std::vector<std::vector<std::uint32_t>> truth(
      data.truth.begin(), data.truth.begin() + static_cast<std::ptrdiff_t>(count));
  const double per_query = 1e3 / static_cast<double>(count);
  table.rows.push_back({std::string("Quarry exact: true"), static_cast<std::int64_t>(count),
                        server.seconds, server.seconds * per_query,
                        MeanRecall(server.answers, truth), server.seconds / flat.seconds});
  table.rows.push_back({std::string("flat scan in-process"), static_cast<std::int64_t>(count),
                        flat.seconds, flat.seconds * per_query, MeanRecall(flat.answers, truth),
                        tc::Cell()});
  table.notes.push_back(
      "One thread each, the median of " + std::to_string(settings.repeat) +
      " runs. The flat scan is a loop over every vector with the dot-product kernel "
      "the server uses (AVX-512 or AVX2+FMA, the widest the CPU has) and a partial sort of the "
      "scores.");
  return table;
}

}  // namespace quarry::bench
