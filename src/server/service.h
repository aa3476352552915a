// The server's request dispatch: generic arguments, write concern, Status -> error reply,
// counters. One Service per process; one Session per connection. main/ adapts Session to
// net/'s ConnectionHandler (net/ and server/ never include each other).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bson/value.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "commands/service_state.h"
#include "wire/request.h"

namespace quarry::server {

struct Reply {
  bool send = true;          // false: the client asked for no reply (moreToCome)
  bson::Document body;
  bool compressible = true;  // false for handshake replies
  bool close_after = false;
};

class Session;

class Service {
 public:
  // `state` must outlive the Service; its subsystems (engine, catalog, cursors) are set.
  explicit Service(commands::ServiceState& state);

  std::unique_ptr<Session> NewSession(std::int64_t connection_id, std::string remote);
  commands::ServiceState& state() { return state_; }
  const commands::CommandRegistry& registry() const { return registry_; }

 private:
  commands::ServiceState& state_;
  commands::CommandRegistry registry_;
};

struct Dispatch;

class Session {
 public:
  Session(Service& service, std::int64_t connection_id, std::string remote);

  // Runs one request and calls `done` with its reply, exactly once: at once for most commands,
  // later (from another thread) for one that waits. `request` must stay valid until then.
  // Never throws.
  void HandleAsync(const wire::Request& request, std::function<void(Reply)> done);
  // The same, waiting for the reply.
  Reply Handle(const wire::Request& request);

  const commands::ConnectionState& connection() const { return connection_; }

 private:
  Status Resolve(const wire::Request& request, Dispatch* d);
  void Run(const wire::Request& request, std::shared_ptr<Dispatch> d,
           std::function<void(Reply)> done);
  Reply Finish(const wire::Request& request, Dispatch& d);

  Service& service_;
  commands::ConnectionState connection_;
};

}  // namespace quarry::server
