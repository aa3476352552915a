// One-document writes before and after a bulk load: a server that keeps per-batch state sized
// by its largest batch makes every later small write pay for it.
#include <chrono>

#include "bench/clients/process_cpu.h"
#include "bench/pointops/key_space.h"
#include "bench/pointops/parts.h"
#include "bench/pointops/parts_internal.h"
#include "tools/bench/bulk_insert.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;
using Clock = std::chrono::steady_clock;

// insert_one after the bulk load should keep this share of its rate before it.
constexpr double kMinShareAfterBulk = 0.90;
constexpr std::size_t kValueBytes = 100;
constexpr double kMaxIdleWaitSeconds = 60;
const std::string kSingles = "after_bulk_single";
const std::string kBulk = "after_bulk_load";

ClientFactory SingleInserts(const PointOpsSettings& settings, KeySpace& keys) {
  auto insert = [&keys](QuarrySession& session, std::mt19937_64&) -> StatusWith<bool> {
    std::optional<std::size_t> index = keys.NextToWrite();
    if (!index) return false;
    QUARRY_RETURN_IF_ERROR(
        session.InsertOne(kSingles, KeyOf(*index), ValueOf(*index, kValueBytes)));
    return true;
  };
  return SessionClients<QuarrySession>(QuarryConnector(settings), insert);
}

tools::bench::DocumentSet BulkDocuments(std::size_t count) {
  tools::bench::DocumentSet docs;
  for (std::size_t index = 0; index < count; ++index) {
    bson_t doc = BSON_INITIALIZER;
    const std::string key = KeyOf(index);
    const std::string value = ValueOf(index, kValueBytes);
    bson_append_utf8(&doc, "_id", 3, key.data(), static_cast<int>(key.size()));
    bson_append_utf8(&doc, "v", 1, value.data(), static_cast<int>(value.size()));
    docs.Append(&doc);
    bson_destroy(&doc);
  }
  return docs;
}

tc::ResultTable AfterBulkTable(const PointOpsSettings& settings) {
  tc::ResultTable table;
  table.benchmark = "pointops_after_bulk";
  table.title = "insert_one from one client before and after a bulk load into another collection";
  table.parameters = {{"value bytes", static_cast<std::int64_t>(kValueBytes)},
                      {"bulk documents", static_cast<std::int64_t>(settings.bulk_documents)},
                      {"seconds per insert_one row", settings.seconds}};
  table.columns = {{"operation", "operation"},
                   {"documents", "documents"},
                   {"seconds", "seconds", 2},
                   {"documents/s", "documents_per_second", 0},
                   {"p50 us", "p50_micros", 0},
                   {"p99 us", "p99_micros", 0},
                   {"server CPU us/doc", "server_cpu_micros_per_document", 1},
                   {"vs before", "ratio_to_before", 2}};
  return table;
}

std::vector<tc::Cell> InsertOneRow(const std::string& operation, const MeasuredRow& row,
                                   tc::Cell ratio) {
  return {operation,
          row.latency.ops,
          row.latency.ops / row.latency.ops_per_second,
          row.latency.ops_per_second,
          row.latency.p50_micros,
          row.latency.p99_micros,
          CpuMicrosPerOp(row),
          ratio};
}

}  // namespace

StatusWith<tc::ResultTable> AfterBulkPart(const PointOpsSettings& settings) {
  tc::ResultTable table = AfterBulkTable(settings);
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<QuarrySession> admin, QuarryConnector(settings)());
  QUARRY_RETURN_IF_ERROR(admin->Drop(kSingles));
  QUARRY_RETURN_IF_ERROR(admin->Drop(kBulk));

  // Each insert_one row starts once the server has gone quiet, so that neither pays for
  // flushes and compactions of what was written before it (the bulk load's above all).
  WaitUntilIdle(settings.server_pid, kMaxIdleWaitSeconds);
  KeySpace before_keys(0, settings.max_keys);
  QUARRY_ASSIGN_OR_RETURN(MeasuredRow before, MeasureRow(SingleInserts(settings, before_keys), 1,
                                                         settings.seconds, settings.server_pid));
  table.rows.push_back(InsertOneRow("insert_one, before the bulk load", before, tc::Cell()));

  const tools::bench::DocumentSet docs = BulkDocuments(settings.bulk_documents);
  const double cpu_before = ProcessCpuSeconds(settings.server_pid);
  const Clock::time_point start = Clock::now();
  QUARRY_RETURN_IF_ERROR(admin->InsertMany(kBulk, docs));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu_seconds =
      cpu_before >= 0 ? ProcessCpuSeconds(settings.server_pid) - cpu_before : -1;
  const auto documents = static_cast<std::int64_t>(settings.bulk_documents);
  table.rows.push_back(
      {std::string("insert_many, one call"), documents, seconds,
       static_cast<double>(documents) / seconds, tc::Cell(), tc::Cell(),
       cpu_seconds >= 0 ? tc::Cell(cpu_seconds * 1e6 / static_cast<double>(documents)) : tc::Cell(),
       tc::Cell()});

  WaitUntilIdle(settings.server_pid, kMaxIdleWaitSeconds);
  KeySpace after_keys(before_keys.end(), settings.max_keys);
  QUARRY_ASSIGN_OR_RETURN(MeasuredRow after, MeasureRow(SingleInserts(settings, after_keys), 1,
                                                        settings.seconds, settings.server_pid));
  const double share = after.latency.ops_per_second / before.latency.ops_per_second;
  table.rows.push_back(InsertOneRow("insert_one, after the bulk load", after, share));
  table.notes.push_back(
      "target: insert_one after the bulk load >= " + Fixed(kMinShareAfterBulk, 2) +
      " of its rate before it: " + Fixed(share, 2) + ", " + Verdict(share >= kMinShareAfterBulk));
  table.notes.push_back(
      "insert_many sends the documents in as few commands as the driver's batch limits allow "
      "(100,000 documents, 48 MB); the insert_one rows write new keys of their own collection, "
      "each once the server has gone quiet (under 2% of a core for half a second).");
  return table;
}

}  // namespace quarry::bench
