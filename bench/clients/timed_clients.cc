// The timed loop: a latch releases every thread at once, each keeps its own latencies, and
// they are merged after the last thread stops.
#include "bench/clients/timed_clients.h"

#include <algorithm>
#include <chrono>
#include <latch>
#include <thread>
#include <vector>

#include "bench/clients/process_cpu.h"

namespace quarry::bench {

using Clock = std::chrono::steady_clock;

StatusWith<LatencySummary> RunTimedClients(const ClientFactory& make, int threads, double seconds) {
  std::vector<std::vector<double>> micros(threads);
  std::vector<Status> statuses(threads);
  // When each thread's last operation ended: closing connections is not part of the row.
  std::vector<Clock::time_point> ended(threads);
  std::latch connected(threads + 1);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  const auto length =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (int thread_idx = 0; thread_idx < threads; ++thread_idx) {
    workers.emplace_back([&, thread_idx] {
      StatusWith<std::unique_ptr<TimedClient>> client = make();
      connected.arrive_and_wait();
      if (!client.ok()) {
        statuses[thread_idx] = client.status();
        return;
      }
      std::mt19937_64 random(thread_idx + 1);
      const Clock::time_point deadline = Clock::now() + length;
      Clock::time_point& now = ended[thread_idx];
      for (now = Clock::now(); now < deadline;) {
        StatusWith<bool> ran = client.value()->RunOnce(random);
        const Clock::time_point done = Clock::now();
        if (!ran.ok()) {
          statuses[thread_idx] = ran.status();
          return;
        }
        if (!ran.value()) return;
        micros[thread_idx].push_back(std::chrono::duration<double, std::micro>(done - now).count());
        now = done;
      }
    });
  }
  connected.arrive_and_wait();
  const Clock::time_point start = Clock::now();
  for (std::thread& worker : workers) worker.join();
  const double elapsed =
      std::chrono::duration<double>(*std::max_element(ended.begin(), ended.end()) - start).count();
  for (const Status& status : statuses) QUARRY_RETURN_IF_ERROR(status);
  std::vector<double> all;
  for (const auto& thread_micros : micros) {
    all.insert(all.end(), thread_micros.begin(), thread_micros.end());
  }
  return Summarize(std::move(all), elapsed);
}

StatusWith<MeasuredRow> RunTimedClientsMeasuringCpu(const ClientFactory& make, int threads,
                                                    double seconds, int pid) {
  const double before = pid != 0 ? ProcessTreeCpuSeconds(pid) : -1;
  const double own_before = OwnCpuSeconds();
  MeasuredRow row;
  QUARRY_ASSIGN_OR_RETURN(row.latency, RunTimedClients(make, threads, seconds));
  row.client_cpu_seconds = OwnCpuSeconds() - own_before;
  const double after = pid != 0 ? ProcessTreeCpuSeconds(pid) : -1;
  if (before >= 0 && after >= 0) row.cpu_seconds = after - before;
  return row;
}

}  // namespace quarry::bench
