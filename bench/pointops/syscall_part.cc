// System calls per point read: one client's find by _id with strace attached to the server.
// docs/DESIGN.md ("Threads") expects four per request in steady state: two epoll_wait, one
// receive, one send.
#include "bench/pointops/parts.h"
#include "bench/pointops/parts_internal.h"
#include "bench/pointops/syscall_count.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

// Rows after the total: the most frequent calls, enough to show where the rest go.
constexpr std::size_t kListedSyscalls = 8;

}  // namespace

StatusWith<tc::ResultTable> SyscallPart(const PointOpsSettings& settings, const WrittenKeys& keys) {
  tc::ResultTable table;
  table.benchmark = "pointops_syscalls";
  table.title = "server system calls per find {_id}, one client, counted by strace -c -f";
  table.columns = {{"system call", "syscall"},
                   {"calls", "calls"},
                   {"per request", "per_request", 2},
                   {"failed (e.g. EAGAIN)", "errors"}};
  const ClientFactory reader = QuarryPointReaders(settings, keys);
  LatencySummary latency;
  StatusWith<std::vector<SyscallCount>> counts =
      CountSyscalls(settings.server_pid, [&]() -> Status {
        QUARRY_ASSIGN_OR_RETURN(latency, RunTimedClients(reader, 1, settings.strace_seconds));
        return Status::OK();
      });
  if (!counts.ok()) {
    table.notes.push_back("not measured: " + counts.status().ToString());
    return table;
  }
  table.parameters = {{"requests", latency.ops}, {"seconds", settings.strace_seconds}};
  const double requests = static_cast<double>(std::max<std::int64_t>(latency.ops, 1));
  SyscallCount total{.name = "all"};
  for (const SyscallCount& count : counts.value()) {
    total.calls += count.calls;
    total.errors += count.errors;
  }
  table.rows.push_back(
      {total.name, total.calls, static_cast<double>(total.calls) / requests, total.errors});
  for (std::size_t row_idx = 0; row_idx < std::min(kListedSyscalls, counts.value().size());
       ++row_idx) {
    const SyscallCount& count = counts.value()[row_idx];
    table.rows.push_back(
        {count.name, count.calls, static_cast<double>(count.calls) / requests, count.errors});
  }
  table.notes.push_back(
      "every thread of the server is counted, from attaching to detaching: the background "
      "threads (WAL syncer, cursor reaper, RocksDB) add a little; strace slows each call, so "
      "requests/s here is not comparable with the other tables.");
  return table;
}

}  // namespace quarry::bench
