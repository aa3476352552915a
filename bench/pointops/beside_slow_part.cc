// Short requests beside slow ones: a client alternating ping and find by _id, alone and then
// while other clients repeat commands that scan a large collection. Short commands run on the
// io threads and long ones on the worker pool (docs/DESIGN.md, "Threads"), so the short
// requests' latency should barely move.
#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <thread>

#include "bench/pointops/key_space.h"
#include "bench/pointops/parts.h"
#include "bench/pointops/parts_internal.h"
#include "bench/pointops/quarry_session.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;
using Clock = std::chrono::steady_clock;

constexpr double kMaxShortP99Millis = 10;
// Each slow command should take at least this long, or the part shows nothing.
constexpr double kMinSlowSeconds = 0.5;
constexpr std::int32_t kBuckets = 100;
constexpr std::size_t kLoadBatch = 1'000;
// What _id, bucket and num add to a document's text field, in BSON bytes.
constexpr std::size_t kFixedDocumentBytes = 62;
const std::string kCollection = "big";

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

std::size_t TextBytes(const PointOpsSettings& settings) {
  return settings.big_document_bytes > 2 * kFixedDocumentBytes
             ? settings.big_document_bytes - kFixedDocumentBytes
             : kFixedDocumentBytes;
}

// {_id: KeyOf(i), bucket: i % 100, num: i, v: <letters and no digit>}.
Status LoadCollection(QuarrySession& session, const PointOpsSettings& settings) {
  QUARRY_RETURN_IF_ERROR(session.Drop(kCollection));
  const std::size_t text_bytes = TextBytes(settings);
  for (std::size_t begin = 0; begin < settings.big_documents; begin += kLoadBatch) {
    tools::bench::DocumentSet docs;
    for (std::size_t index = begin; index < std::min(settings.big_documents, begin + kLoadBatch);
         ++index) {
      bson_t doc = BSON_INITIALIZER;
      const std::string key = KeyOf(index);
      const std::string text = ValueOf(index, text_bytes);
      bson_append_utf8(&doc, "_id", 3, key.data(), static_cast<int>(key.size()));
      BSON_APPEND_INT32(&doc, "bucket", static_cast<std::int32_t>(index % kBuckets));
      BSON_APPEND_INT64(&doc, "num", static_cast<std::int64_t>(index));
      bson_append_utf8(&doc, "v", 1, text.data(), static_cast<int>(text.size()));
      docs.Append(&doc);
      bson_destroy(&doc);
    }
    QUARRY_RETURN_IF_ERROR(session.InsertMany(kCollection, docs));
  }
  return Status::OK();
}

struct ShortLatencies {
  std::vector<double> ping_micros;
  std::vector<double> find_micros;
};

// Alternates ping and find by a random _id for `seconds`.
Status ProbeShortRequests(QuarrySession& session, const PointOpsSettings& settings,
                          ShortLatencies* out) {
  std::mt19937_64 random(1);
  const std::size_t text_bytes = TextBytes(settings);
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(settings.seconds));
  for (bool ping = true; Clock::now() < deadline; ping = !ping) {
    const Clock::time_point start = Clock::now();
    if (ping) {
      QUARRY_RETURN_IF_ERROR(session.Ping());
      out->ping_micros.push_back(MicrosSince(start));
    } else {
      const std::string key = KeyOf(random() % settings.big_documents);
      QUARRY_RETURN_IF_ERROR(session.FindById(kCollection, key, text_bytes));
      out->find_micros.push_back(MicrosSince(start));
    }
  }
  return Status::OK();
}

// One kind of slow command: how to run it once (checking its answer), and its clients' runs.
struct SlowKind {
  std::string label;
  std::function<Status(QuarrySession&)> run_once;
  std::vector<std::vector<double>> micros;  // by client
  std::vector<Status> statuses;             // by client
};

SlowKind GroupKind(const PointOpsSettings& settings) {
  const std::int64_t groups =
      std::min<std::int64_t>(kBuckets, static_cast<std::int64_t>(settings.big_documents));
  auto run = [groups](QuarrySession& session) -> Status {
    // [{$group: {_id: "$bucket", n: {$sum: 1}, total: {$sum: "$num"}}}]
    bson_t* pipeline =
        BCON_NEW("0", "{", "$group", "{", "_id", BCON_UTF8("$bucket"), "n", "{", "$sum",
                 BCON_INT32(1), "}", "total", "{", "$sum", BCON_UTF8("$num"), "}", "}", "}");
    StatusWith<std::int64_t> results = session.AggregateAll(kCollection, *pipeline);
    bson_destroy(pipeline);
    QUARRY_RETURN_IF_ERROR(results.status());
    if (results.value() != groups) {
      return Status(ErrorCode::kOperationFailed, "$group returned " +
                                                     std::to_string(results.value()) +
                                                     " groups, not " + std::to_string(groups));
    }
    return Status::OK();
  };
  return {"aggregate [$group by bucket] over the collection", run, {}, {}};
}

SlowKind RegexKind() {
  auto run = [](QuarrySession& session) -> Status {
    // The text holds letters and spaces only, so every document is read and none matches.
    bson_t* filter = BCON_NEW("v", "{", "$regex", BCON_UTF8("[0-9]{3}"), "}");
    StatusWith<std::int64_t> results = session.FindAll(kCollection, *filter);
    bson_destroy(filter);
    QUARRY_RETURN_IF_ERROR(results.status());
    if (results.value() != 0) {
      return Status(ErrorCode::kOperationFailed, "the $regex find matched a document");
    }
    return Status::OK();
  };
  return {"find {v: {$regex: \"[0-9]{3}\"}} (unanchored, no match)", run, {}, {}};
}

// Runs `kinds`' slow clients until `probe` returns; each finishes the command it is in.
Status RunBesideSlowClients(const PointOpsSettings& settings, std::vector<SlowKind>* kinds,
                            const std::function<Status()>& probe) {
  const int per_kind = settings.slow_clients_per_kind;
  std::atomic<bool> stop = false;
  std::latch started(static_cast<std::ptrdiff_t>(kinds->size()) * per_kind + 1);
  std::vector<std::thread> threads;
  for (SlowKind& kind : *kinds) {
    kind.micros.assign(per_kind, {});
    kind.statuses.assign(per_kind, Status::OK());
    for (int client_idx = 0; client_idx < per_kind; ++client_idx) {
      threads.emplace_back([&, client_idx, kind_ptr = &kind] {
        StatusWith<std::unique_ptr<QuarrySession>> session =
            QuarrySession::Connect(settings.uri, settings.db, "pointops_bench slow");
        started.count_down();
        if (!session.ok()) {
          kind_ptr->statuses[client_idx] = session.status();
          return;
        }
        while (!stop.load()) {
          const Clock::time_point start = Clock::now();
          Status status = kind_ptr->run_once(*session.value());
          if (!status.ok()) {
            kind_ptr->statuses[client_idx] = status;
            return;
          }
          kind_ptr->micros[client_idx].push_back(MicrosSince(start));
        }
      });
    }
  }
  started.arrive_and_wait();
  // Every slow client has sent its first command by now.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Status probed = probe();
  stop = true;
  for (std::thread& thread : threads) thread.join();
  QUARRY_RETURN_IF_ERROR(probed);
  for (const SlowKind& kind : *kinds) {
    for (const Status& status : kind.statuses) QUARRY_RETURN_IF_ERROR(status);
  }
  return Status::OK();
}

std::vector<tc::Cell> MillisRow(const std::string& label, int clients,
                                const LatencySummary& summary, tc::Cell target) {
  return {label,
          static_cast<std::int64_t>(clients),
          summary.ops,
          summary.p50_micros / 1e3,
          summary.p99_micros / 1e3,
          summary.max_micros / 1e3,
          std::move(target)};
}

}  // namespace

StatusWith<tc::ResultTable> BesideSlowPart(const PointOpsSettings& settings) {
  tc::ResultTable table;
  table.benchmark = "pointops_beside_slow";
  table.title = "ping and find {_id} from one client, alone and beside slow commands";
  table.parameters = {{"documents", static_cast<std::int64_t>(settings.big_documents)},
                      {"document bytes", static_cast<std::int64_t>(settings.big_document_bytes)},
                      {"seconds per row", settings.seconds}};
  table.columns = {{"command", "command"},  {"clients", "clients"},  {"runs", "runs"},
                   {"p50 ms", "p50_ms", 3}, {"p99 ms", "p99_ms", 3}, {"max ms", "max_ms", 3},
                   {"target", "target"}};
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<QuarrySession> session, QuarryConnector(settings)());
  QUARRY_RETURN_IF_ERROR(LoadCollection(*session, settings));

  std::vector<SlowKind> kinds = {GroupKind(settings), RegexKind()};
  // One untimed run of each slow command first: it reads the fresh load into the caches and
  // gives the storage engine time to settle, so the "alone" rows are a steady baseline.
  for (const SlowKind& kind : kinds) QUARRY_RETURN_IF_ERROR(kind.run_once(*session));
  ShortLatencies alone;
  QUARRY_RETURN_IF_ERROR(ProbeShortRequests(*session, settings, &alone));
  ShortLatencies beside;
  QUARRY_RETURN_IF_ERROR(RunBesideSlowClients(
      settings, &kinds, [&] { return ProbeShortRequests(*session, settings, &beside); }));

  table.rows.push_back(MillisRow("ping, alone", 1, Summarize(alone.ping_micros, 0), {}));
  table.rows.push_back(MillisRow("find {_id}, alone", 1, Summarize(alone.find_micros, 0), {}));
  bool short_met = true;
  for (auto [label, micros] :
       {std::pair{"ping, beside the slow commands", &beside.ping_micros},
        std::pair{"find {_id}, beside the slow commands", &beside.find_micros}}) {
    LatencySummary summary = Summarize(*micros, 0);
    const bool met = summary.ops > 0 && summary.p99_micros < kMaxShortP99Millis * 1e3;
    short_met = short_met && met;
    table.rows.push_back(MillisRow(label, 1, summary, Verdict(met)));
  }
  bool slow_enough = true;
  for (const SlowKind& kind : kinds) {
    std::vector<double> all;
    for (const auto& client_micros : kind.micros) {
      all.insert(all.end(), client_micros.begin(), client_micros.end());
    }
    LatencySummary summary = Summarize(std::move(all), 0);
    slow_enough = slow_enough && summary.ops > 0 && summary.p50_micros >= kMinSlowSeconds * 1e6;
    table.rows.push_back(MillisRow(kind.label, settings.slow_clients_per_kind, summary, {}));
  }
  table.notes.push_back("target: ping and find {_id} p99 < " + Fixed(kMaxShortP99Millis, 0) +
                        " ms beside the slow commands: " + Verdict(short_met));
  table.notes.push_back(
      "slow commands took >= " + Fixed(kMinSlowSeconds, 1) + " s each (median): " +
      (slow_enough ? std::string("yes") : std::string("no, raise --big-documents")));
  return table;
}

}  // namespace quarry::bench
