#include "bench/pointops/parts_internal.h"

#include "bench/pointops/key_space.h"

namespace quarry::bench {

StatusWith<MeasuredRow> MeasureRow(const ClientFactory& make, int threads, double seconds,
                                   int pid) {
  QUARRY_ASSIGN_OR_RETURN(MeasuredRow row,
                          RunTimedClientsMeasuringCpu(make, threads, seconds, pid));
  if (row.latency.ops == 0) {
    return Status(ErrorCode::kOperationFailed, "a timed row completed no operation");
  }
  return row;
}

tools::client::Cell CpuMicrosPerOp(const MeasuredRow& row) {
  if (row.cpu_seconds < 0 || row.latency.ops == 0) return {};
  return row.cpu_seconds * 1e6 / static_cast<double>(row.latency.ops);
}

std::function<StatusWith<std::unique_ptr<QuarrySession>>()> QuarryConnector(
    const PointOpsSettings& settings) {
  return
      [&settings] { return QuarrySession::Connect(settings.uri, settings.db, "pointops_bench"); };
}

ClientFactory QuarryPointReaders(const PointOpsSettings& settings, const WrittenKeys& keys) {
  auto read = [keys](QuarrySession& session, std::mt19937_64& random) -> StatusWith<bool> {
    QUARRY_RETURN_IF_ERROR(
        session.FindById(keys.collection, KeyOf(random() % keys.count), keys.value_bytes));
    return true;
  };
  return SessionClients<QuarrySession>(QuarryConnector(settings), read);
}

}  // namespace quarry::bench
