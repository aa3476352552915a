// The network front end: listens on TCP, runs one coroutine per connection on a pool of io
// threads, frames and decodes messages with wire/, hands them to a wire::RequestHandler and writes
// the replies. The only place that sees Asio; this header keeps it out (pimpl).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "net/http.h"
#include "net/tls_options.h"
#include "wire/compression.h"
#include "wire/request_handler.h"

namespace quarry::net {

struct ServerOptions {
  // mongod --bind_ip entries; each may be a comma-separated list. "localhost" means 127.0.0.1
  // and ::1 (::1 is skipped with a warning when the host has no IPv6).
  std::vector<std::string> bind_addresses = {"localhost"};
  std::uint16_t port = 27017;  // 0: an ephemeral port, the same on every address (see port())
  int io_threads = 0;          // 0: std::thread::hardware_concurrency()
  // Compressors accepted in OP_COMPRESSED requests; replies reuse the request's compressor.
  std::vector<wire::Compressor> compressors = wire::DefaultCompressors();
  // 0: unlimited; beyond it, new connections are closed at accept (counted in
  // serverStatus's connections.rejected). main/ derives its default from the descriptor limit.
  std::int64_t max_connections = 0;
  TlsOptions tls;
  // A connection whose message (or TLS handshake) stops arriving for this long is closed.
  std::chrono::milliseconds partial_message_timeout{30000};
  // Memory every connection's partly or wholly received messages may hold together, beyond a
  // small allowance each. Past it, a message waits for room (and is closed like a stalled one
  // if none frees up in partial_message_timeout). At least one largest message.
  std::size_t incoming_message_memory_limit = std::size_t{1} << 30;
  // Install SIGINT/SIGTERM handlers in Start() that begin a graceful stop.
  bool stop_on_signals = false;
  // How long a graceful stop waits for in-flight requests before it interrupts those still
  // running (RequestHandler::OnDrainTimedOut) and closes every connection.
  std::chrono::milliseconds drain_timeout{10000};
  // How long an io thread that has run out of events may poll for the next one before it
  // sleeps (adapted below this by how soon events come; 0: never poll). Needs io_uring.
  std::chrono::microseconds io_poll_limit{100};
  // /metrics and /healthz over HTTP (net/http.h); off unless http.port is set.
  HttpOptions http;
};

class Server {
 public:
  // `handler` must outlive the server.
  Server(ServerOptions options, wire::RequestHandler& handler);
  ~Server();  // Stop()s if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds every address, listens and starts the io threads; returns at once. Fails with
  // kSocketException naming the address when one cannot be bound (port in use, bad address),
  // or when none can. Call once.
  Status Start();

  // The port actually listened on (useful after port 0). REQUIRES: Start() succeeded.
  std::uint16_t port() const;
  // "127.0.0.1:27017", "[::1]:27017": one entry per listening socket.
  std::vector<std::string> listening_addresses() const;

  // Blocks until a stop is requested (RequestStop, Stop, or a signal when stop_on_signals),
  // then performs the graceful stop and returns. Returns the signal number that stopped the
  // server, or 0.
  int Run();

  // Asks for a graceful stop without waiting for it: safe from any thread, including io
  // threads (a `shutdown` command) and signal-watching threads.
  void RequestStop();

  // Graceful stop, waiting for it to finish: stops accepting, closes idle connections, lets
  // in-flight requests finish and their replies go out (up to drain_timeout), has the handler
  // interrupt the requests still running and gives their error replies a moment to go out,
  // closes the rest and joins the io threads. Idempotent and thread-safe. Called from an io thread
  // it only requests the stop (a thread cannot join itself).
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quarry::net
