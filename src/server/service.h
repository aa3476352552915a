// The server: the command registry, the logical sessions, and per connection a Client that
// dispatches each request: find the command, apply the generic arguments (lsid, txnNumber,
// writeConcern, maxTimeMS), run it, shape the reply or the error exactly as mongod does, and
// account for it. net/ reaches it through wire/'s handler interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "commands/service_state.h"
#include "server/held_writes.h"
#include "server/sessions/session_catalog.h"
#include "server/testing/fail_points.h"
#include "server/worker_pool.h"
#include "wire/request.h"
#include "wire/request_handler.h"

namespace quarry::storage {
class Engine;
}  // namespace quarry::storage

namespace quarry::server {

class Service final : public wire::RequestHandler {
 public:
  // `state` must outlive the Service; its subsystems (engine, catalog, cursors) are set. The
  // service registers its commands, its sessions and, with enable_test_commands, its fail
  // points in `state`.
  explicit Service(commands::ServiceState& state);

  // Loads what the sessions' retryable writes kept. Call once, before serving.
  Status Attach(storage::Engine* engine);

  std::unique_ptr<wire::ConnectionHandler> OnConnect(const wire::ConnectionInfo& info) override;
  // Lets go of fsync's lock, as mongod's shutdown does, so that the writes it holds run and
  // the stop can wait for them.
  void OnStopping() override;
  bool OnDrainTimedOut() override;
  // The same, for callers that have no net/ connection (tests).
  std::unique_ptr<wire::ConnectionHandler> NewClient(std::int64_t connection_id,
                                                     std::string remote);

  commands::ServiceState& state() { return state_; }
  const commands::CommandRegistry& registry() const { return registry_; }
  SessionCatalog& sessions() { return sessions_; }
  FailPoints* fail_points() { return fail_points_.get(); }
  WorkerPool& workers() { return workers_; }
  HeldWrites& held_writes() { return held_writes_; }

 private:
  commands::ServiceState& state_;
  commands::CommandRegistry registry_;
  SessionCatalog sessions_;
  std::unique_ptr<FailPoints> fail_points_;
  HeldWrites held_writes_;  // writes waiting for fsyncUnlock
  WorkerPool workers_;      // last: its commands use everything above until it has joined
};

struct Dispatch;

// One connection's requests, in order. Handle runs one request synchronously; HandleAsync
// completes from a worker for a command that may run long (commands/work_placement.h), and from
// another thread for a command that waits (a change stream's getMore).
class Client final : public wire::ConnectionHandler {
 public:
  Client(Service& service, std::int64_t connection_id, std::string remote);
  ~Client() override;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  wire::Response Handle(const wire::Request& request) override;
  void HandleAsync(const wire::Request& request, Completion done) override;

  const commands::ConnectionState& connection() const { return connection_; }

 private:
  Status Resolve(const wire::Request& request, Dispatch* d);
  void ApplyFailCommand(Dispatch* d, bool* closed);
  void Run(std::shared_ptr<Dispatch> d, Completion done);
  wire::Response Finish(Dispatch& d);
  void FinishStatement(Transactions::Statement* statement, Dispatch* d);

  Service& service_;
  commands::ConnectionState connection_;
};

}  // namespace quarry::server
