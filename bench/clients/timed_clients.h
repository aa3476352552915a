// Client threads, each with its own connection, running one kind of operation back to back for
// a fixed time; connections are made before the clock starts, so ops/s counts operations only.
#pragma once

#include <functional>
#include <memory>
#include <random>

#include "base/status.h"
#include "bench/clients/latency.h"

namespace quarry::bench {

class TimedClient {
 public:
  virtual ~TimedClient() = default;
  // Runs one operation and checks its answer. Returns false, having run nothing, when the
  // client has nothing left to do. `random` is seeded by thread, so two stores given the same
  // work see the same sequence.
  virtual StatusWith<bool> RunOnce(std::mt19937_64& random) = 0;
};

// Makes one thread's client, connecting it; called on that thread.
using ClientFactory = std::function<StatusWith<std::unique_ptr<TimedClient>>()>;

// Each of `threads` threads makes its client, then all run operations for `seconds` (or until
// their clients have nothing left). Fails with the first error of any thread.
StatusWith<LatencySummary> RunTimedClients(const ClientFactory& make, int threads, double seconds);

struct MeasuredRow {
  LatencySummary latency;
  double cpu_seconds = -1;        // of process `pid` and its children over the row; -1: unknown
  double client_cpu_seconds = 0;  // of this process (its client threads) over the row
};

// RunTimedClients, with the CPU time process `pid` (0: none) and its children used meanwhile,
// from /proc, and this process's own: on a shared machine they show what the operations cost
// the server and the client even when wall time includes waiting for a core.
StatusWith<MeasuredRow> RunTimedClientsMeasuringCpu(const ClientFactory& make, int threads,
                                                    double seconds, int pid);

}  // namespace quarry::bench

namespace quarry::bench {

// A TimedClient over one session (a QuarrySession or a RedisSession) and an operation on it.
template <typename Session>
class SessionClient : public TimedClient {
 public:
  using Operation = std::function<StatusWith<bool>(Session&, std::mt19937_64&)>;

  SessionClient(std::unique_ptr<Session> session, Operation operation)
      : session_(std::move(session)), operation_(std::move(operation)) {}
  StatusWith<bool> RunOnce(std::mt19937_64& random) override {
    return operation_(*session_, random);
  }

 private:
  std::unique_ptr<Session> session_;
  Operation operation_;
};

// A factory whose clients connect with `connect` and run `operation`.
template <typename Session>
ClientFactory SessionClients(std::function<StatusWith<std::unique_ptr<Session>>()> connect,
                             typename SessionClient<Session>::Operation operation) {
  return [connect = std::move(connect),
          operation = std::move(operation)]() -> StatusWith<std::unique_ptr<TimedClient>> {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, connect());
    return std::unique_ptr<TimedClient>(
        std::make_unique<SessionClient<Session>>(std::move(session), operation));
  };
}

}  // namespace quarry::bench
