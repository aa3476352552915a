// What answers decoded requests: net/ calls it with each request of a connection, server/
// implements it, and main/ hands the one to the other. It lives with the request it takes, so
// neither net/ nor server/ includes the other.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bson/value.h"
#include "wire/request.h"

namespace quarry::wire {

struct ConnectionInfo {
  std::int64_t id;
  std::string remote;  // "127.0.0.1:53622", "[::1]:53622"
  std::string local;
};

struct Response {
  bool send = true;          // false: no reply at all (OP_MSG moreToCome)
  bson::Document body;       // the reply document (ok, errmsg, ...)
  bool compressible = true;  // false for handshake/auth replies: never compress them
  bool close_after = false;  // close the connection after sending
};

// One per connection. Handle is called on an io thread, one request at a time per
// connection, in arrival order. Exceptions are caught by net/ and answered with InternalError,
// but handlers should return errors as replies instead.
class ConnectionHandler {
 public:
  using Completion = std::function<void(Response)>;

  virtual ~ConnectionHandler() = default;
  virtual Response Handle(const Request& request) = 0;

  // For requests that wait (a change stream's getMore): call `done` exactly once, from any
  // thread, now or later; `request` stays valid until then. The connection reads no further
  // request meanwhile, and no io thread is held while it waits. The default answers at once
  // with Handle().
  virtual void HandleAsync(const Request& request, Completion done) { done(Handle(request)); }
};

// Creates the per-connection handler when a client connects (on an io thread). Returning null
// refuses the connection.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  virtual std::unique_ptr<ConnectionHandler> OnConnect(const ConnectionInfo& info) = 0;
  // A graceful stop begins: requests still running will be waited for, so anything that holds
  // them back (fsync's lock) lets go now. Called once, from the stopping thread.
  virtual void OnStopping() {}
  // The stop's drain period ended with requests still running: make them stop (at their next
  // interruption check) so that the server can. Returns whether it interrupted any (whose error
  // replies are then worth waiting for). Called once, from the stopping thread.
  virtual bool OnDrainTimedOut() { return false; }
};

}  // namespace quarry::wire
