// The listener side of net/: binding, the accept loops, the io threads, the connection
// registry and the graceful stop. Connections themselves live in connection.cc.
#include "net/server.h"

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <thread>

#include "base/log.h"
#include "net/asio_internal.h"
#include "net/bind_addresses.h"
#include "net/connection_internal.h"
#include "net/cpu_pressure_internal.h"
#include "net/frame_buffer_internal.h"
#include "net/http_listener_internal.h"
#include "net/io_thread_internal.h"
#include "net/readiness_ring_internal.h"
#include "net/tls_internal.h"
#include "wire/network_counters.h"

namespace quarry::net {

namespace asio = boost::asio;
using internal::Connection;
using internal::Strand;
using internal::tcp;
namespace sys = boost::system;

namespace {

constexpr int kLogConnectionAccepted = 22943;
constexpr int kLogTooManyConnections = 22942;
constexpr int kLogListening = 23015;
constexpr int kLogWaitingForConnections = 23016;
constexpr int kLogNoIpv6 = 23110;
constexpr int kLogAcceptError = 23111;
constexpr int kLogDrainTimeout = 23112;
constexpr int kLogSignal = 23377;  // mongod's "Received signal"
constexpr int kLogIoPolling = 23114;

// After a graceful drain times out, how often to report connections that have not unwound.
constexpr std::chrono::seconds kForceCloseWait{5};
// After the handler interrupts the requests still running, how long their error replies have
// to go out before every connection is closed.
constexpr std::chrono::seconds kInterruptedRequestsWait{2};
// After a failed accept (out of descriptors, typically), how long the listener waits before
// trying again, and how often it repeats the warning while the failures go on.
constexpr std::chrono::milliseconds kAcceptBackoff{100};
constexpr std::chrono::seconds kAcceptErrorLogInterval{10};

std::string Describe(const tcp::endpoint& endpoint) {
  return FormatHostPort(endpoint.address().to_string(), endpoint.port());
}

bool IsIpv6Unavailable(const sys::error_code& ec) {
  return ec == asio::error::address_family_not_supported || ec == sys::errc::address_not_available;
}

}  // namespace

class Server::Impl {
 public:
  Impl(ServerOptions options, wire::RequestHandler& handler)
      : options_(std::move(options)),
        incoming_memory_(options_.incoming_message_memory_limit),
        io_threads_(options_.io_threads > 0
                        ? options_.io_threads
                        : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {
    // One io_context per thread (concurrency hint 1): a connection's reads, its command and its
    // reply all happen on the thread that owns its socket, with no hand-off between threads
    // and no contention on a shared scheduler. Commands that may run long go to the handler's
    // workers instead (see server/work_placement.h).
    for (int i = 0; i < io_threads_; ++i) ios_.push_back(std::make_unique<asio::io_context>(1));
    connections_per_context_.assign(ios_.size(), 0);
    env_.handler = &handler;
    env_.compressors = options_.compressors;
    env_.stopping = &stopping_;
    env_.on_end = [this](std::int64_t id) { OnConnectionEnd(id); };
    env_.tls_mode = options_.tls.mode;
    env_.partial_message_timeout = options_.partial_message_timeout;
    env_.incoming_memory = &incoming_memory_;
  }

  ~Impl() { Stop(); }

  Status Start();
  int Run();
  void RequestStop();
  void Stop();
  std::uint16_t port() const { return bound_port_; }
  std::vector<std::string> listening_addresses() const {
    std::vector<std::string> out;
    for (const Listener& listener : listeners_) out.push_back(Describe(listener.endpoint));
    return out;
  }

 private:
  struct Listener {
    Listener(tcp::acceptor a, Strand s, tcp::endpoint e)
        : acceptor(std::move(a)), strand(std::move(s)), endpoint(e) {}
    tcp::acceptor acceptor;
    Strand strand;  // the accept loop runs on it; closing the acceptor is posted to it
    tcp::endpoint endpoint;
  };

  StatusWith<std::vector<tcp::endpoint>> Resolve(const std::string& address, std::uint16_t port);
  // `loopback_v6`: the address is ::1, which is skipped (with a warning) on hosts without IPv6.
  Status Listen(const tcp::endpoint& endpoint, bool loopback_v6);
  asio::awaitable<void> AcceptLoop(Listener* listener);
  // `socket` runs on ios_[context].
  void OnAccepted(tcp::socket socket, std::size_t context);
  void OnConnectionEnd(std::int64_t id);
  void Shutdown();
  bool OnIoThread() const;
  // One per io thread when its polling is on and the kernel allows; else nulls, logged.
  void CreateReadinessRings();
  // The io_context for the next accepted connection: the one serving the fewest connections.
  std::size_t PickContext();

  const ServerOptions options_;
  internal::IncomingMessageMemory incoming_memory_;
  std::unique_ptr<internal::TlsContext> tls_context_;  // set unless TLS is disabled
  const int io_threads_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  bool stop_requested_ = false;
  bool shutting_down_ = false;
  bool shut_down_ = false;
  int stop_signal_ = 0;
  std::map<std::int64_t, std::shared_ptr<Connection>> connections_;  // guarded by mu_
  std::int64_t next_connection_id_ = 1;                              // guarded by mu_

  std::atomic<bool> stopping_{false};
  internal::ConnectionEnv env_;
  std::uint16_t bound_port_ = 0;
  std::vector<std::thread::id> io_thread_ids_;

  // Outlive the io_contexts: a connection's socket leaves its ring as the connection ends.
  std::vector<std::shared_ptr<internal::ReadinessRing>> rings_;
  internal::CpuPressure cpu_pressure_;
  // Declared last so they are destroyed first: coroutine frames they still hold may call back
  // into the members above while being destroyed. ios_[0] also runs the accept loops.
  std::vector<std::unique_ptr<asio::io_context>> ios_;
  std::vector<int> connections_per_context_;        // guarded by mu_
  std::map<std::int64_t, std::size_t> context_of_;  // connection id -> ios_ index; mu_
  std::vector<Listener> listeners_;
  std::unique_ptr<internal::HttpListener> http_;
  std::unique_ptr<asio::signal_set> signals_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;
};

StatusWith<std::vector<tcp::endpoint>> Server::Impl::Resolve(const std::string& address,
                                                             std::uint16_t port) {
  sys::error_code ec;
  asio::ip::address ip = asio::ip::make_address(address, ec);
  if (!ec) return std::vector<tcp::endpoint>{tcp::endpoint(ip, port)};
  tcp::resolver resolver(*ios_[0]);
  auto results = resolver.resolve(address, std::to_string(port),
                                  tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec) {
    return Status(ErrorCode::kSocketException,
                  "cannot resolve bind address '" + address + "': " + ec.message());
  }
  std::vector<tcp::endpoint> out;
  for (const auto& entry : results) {
    if (std::find(out.begin(), out.end(), entry.endpoint()) == out.end()) {
      out.push_back(entry.endpoint());
    }
  }
  return out;
}

Status Server::Impl::Listen(const tcp::endpoint& requested, bool loopback_v6) {
  tcp::endpoint endpoint = requested;
  if (endpoint.port() == 0 && bound_port_ != 0) endpoint.port(bound_port_);
  tcp::acceptor acceptor(*ios_[0]);
  sys::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  // Keep IPv6 sockets to IPv6, so "::" and "0.0.0.0" (or ::1 and 127.0.0.1) can share a port.
  if (!ec && endpoint.address().is_v6()) acceptor.set_option(asio::ip::v6_only(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    if (loopback_v6 && IsIpv6Unavailable(ec)) {
      log::Write(log::Severity::kWarning, "NETWORK", kLogNoIpv6, "initandlisten",
                 "IPv6 is not available; not listening on ::1",
                 {{"address", Describe(endpoint)}, {"error", ec.message()}});
      return Status::OK();
    }
    std::string reason = "cannot listen on " + Describe(endpoint) + ": " + ec.message();
    if (ec == asio::error::address_in_use) {
      reason += " (is another quarryd or mongod already using port " +
                std::to_string(endpoint.port()) + "?)";
    }
    return Status(ErrorCode::kSocketException, std::move(reason));
  }
  tcp::endpoint bound = acceptor.local_endpoint(ec);
  if (ec) bound = endpoint;
  if (bound_port_ == 0) bound_port_ = bound.port();
  listeners_.emplace_back(std::move(acceptor), asio::make_strand(*ios_[0]), bound);
  return Status::OK();
}

Status Server::Impl::Start() {
  {
    std::lock_guard lock(mu_);
    if (started_) return Status(ErrorCode::kIllegalOperation, "the server was already started");
    started_ = true;
  }
  if (options_.tls.mode != TlsMode::kDisabled) {
    QUARRY_RETURN_IF_ERROR(CheckTlsOptions(options_.tls));
    QUARRY_ASSIGN_OR_RETURN(tls_context_, internal::MakeTlsContext(options_.tls));
    env_.tls_context = tls_context_.get();
  }
  wire::GlobalNetworkCounters().SetConnectionLimit(options_.max_connections);
  const std::vector<std::string> addresses = ExpandBindAddresses(options_.bind_addresses);
  if (addresses.empty()) {
    return Status(ErrorCode::kSocketException, "no bind address was given");
  }
  bound_port_ = options_.port;
  if (options_.port == 0) bound_port_ = 0;
  for (const std::string& address : addresses) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<tcp::endpoint> endpoints, Resolve(address, options_.port));
    for (const tcp::endpoint& endpoint : endpoints) {
      Status listened = Listen(endpoint, /*loopback_v6=*/address == "::1");
      if (!listened.ok()) {
        listeners_.clear();  // closes what was already bound
        return listened;
      }
    }
  }
  if (listeners_.empty()) {
    return Status(ErrorCode::kSocketException,
                  "could not listen on any of the bind addresses (port " +
                      std::to_string(options_.port) + ")");
  }

  if (options_.http.port != 0) {
    StatusWith<std::unique_ptr<internal::HttpListener>> http =
        internal::HttpListener::Start(*ios_[0], options_.http, &stopping_);
    if (!http.ok()) {
      listeners_.clear();
      return http.status();
    }
    http_ = std::move(http).value();
  }
  for (Listener& listener : listeners_) {
    log::Write(log::Severity::kInfo, "NETWORK", kLogListening, "listener", "Listening on",
               {{"address", Describe(listener.endpoint)}});
    asio::co_spawn(listener.strand, AcceptLoop(&listener), asio::detached);
  }
  if (options_.stop_on_signals) {
    signals_ = std::make_unique<asio::signal_set>(*ios_[0], SIGINT, SIGTERM);
    signals_->async_wait([this](const sys::error_code& ec, int signal_number) {
      if (ec) return;
      log::Write(log::Severity::kInfo, "CONTROL", kLogSignal, "SignalHandler", "Received signal",
                 {{"signal", signal_number}});
      {
        std::lock_guard lock(mu_);
        stop_signal_ = signal_number;
      }
      RequestStop();
    });
  }
  CreateReadinessRings();
  {
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < ios_.size(); ++i) {
      work_.push_back(asio::make_work_guard(*ios_[i]));
      threads_.emplace_back(
          [&io = *ios_[i], ring = rings_[i].get(), &pressure = cpu_pressure_,
           limit = options_.io_poll_limit] { internal::RunIoThread(io, ring, pressure, limit); });
      io_thread_ids_.push_back(threads_.back().get_id());
    }
  }
  log::Write(log::Severity::kInfo, "NETWORK", kLogWaitingForConnections, "listener",
             "Waiting for connections", {{"port", static_cast<int>(bound_port_)}});
  return Status::OK();
}

asio::awaitable<void> Server::Impl::AcceptLoop(Listener* listener) {
  std::chrono::steady_clock::time_point last_error_log;
  std::int64_t failures_since_log = 0;
  while (!stopping_.load()) {
    sys::error_code ec;
    // Accepted straight onto the io_context that will serve it, so that its readiness events
    // arrive on that context's thread.
    const std::size_t context = PickContext();
    tcp::socket socket = co_await listener->acceptor.async_accept(
        *ios_[context], asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_.load() || ec == asio::error::operation_aborted || !listener->acceptor.is_open()) {
      break;
    }
    if (ec) {
      // Typically EMFILE or ENFILE: back off instead of spinning on the error (the client
      // waits in the backlog until a descriptor frees up), and say so once in a while.
      ++failures_since_log;
      const auto now = std::chrono::steady_clock::now();
      if (now - last_error_log >= kAcceptErrorLogInterval) {
        log::Write(log::Severity::kWarning, "NETWORK", kLogAcceptError, "listener",
                   "Error accepting a connection; retrying",
                   {{"error", ec.message()},
                    {"failures", failures_since_log},
                    {"connections", wire::GlobalNetworkCounters().Snapshot().connections_current}});
        last_error_log = now;
        failures_since_log = 0;
      }
      asio::steady_timer timer(listener->strand, kAcceptBackoff);
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    OnAccepted(std::move(socket), context);
  }
}

void Server::Impl::CreateReadinessRings() {
  rings_.assign(ios_.size(), nullptr);
  if (options_.io_poll_limit.count() <= 0) return;
  std::string why_not;
  for (std::shared_ptr<internal::ReadinessRing>& ring : rings_) {
    ring = internal::ReadinessRing::Create(&why_not);
    if (ring == nullptr) {
      rings_.assign(ios_.size(), nullptr);
      log::Write(log::Severity::kInfo, "NETWORK", kLogIoPolling, "listener",
                 "io threads sleep as soon as they run out of events: no io_uring to poll",
                 {{"reason", why_not}});
      return;
    }
  }
}

std::size_t Server::Impl::PickContext() {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(
      std::min_element(connections_per_context_.begin(), connections_per_context_.end()) -
      connections_per_context_.begin());
}

void Server::Impl::OnAccepted(tcp::socket socket, std::size_t context) {
  wire::NetworkCounters& counters = wire::GlobalNetworkCounters();
  sys::error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  const tcp::endpoint local = socket.local_endpoint(ec);
  wire::ConnectionInfo info;
  info.remote = Describe(remote);
  info.local = Describe(local);

  if (options_.max_connections > 0 &&
      counters.Snapshot().connections_current >= options_.max_connections) {
    counters.ConnectionRejected();
    log::Write(log::Severity::kInfo, "NETWORK", kLogTooManyConnections, "listener",
               "Connection refused because there are too many open connections",
               {{"remote", info.remote}, {"max", options_.max_connections}});
    socket.close(ec);
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);
  socket.set_option(asio::socket_base::keep_alive(true), ec);
  // Replies are first written straight from the connection's coroutine (Connection::Write),
  // which must never block its thread.
  socket.non_blocking(true, ec);

  std::shared_ptr<Connection> connection;
  {
    std::lock_guard lock(mu_);
    info.id = next_connection_id_++;
    connection = std::make_shared<Connection>(std::move(socket), asio::make_strand(*ios_[context]),
                                              rings_[context], info, env_);
    connections_.emplace(info.id, connection);
    context_of_.emplace(info.id, context);
    ++connections_per_context_[context];
  }
  counters.ConnectionOpened();
  log::WriteChatter("NETWORK", kLogConnectionAccepted, "listener", "Connection accepted",
                    {{"remote", info.remote},
                     {"connectionId", info.id},
                     {"connectionCount", counters.Snapshot().connections_current}});
  asio::co_spawn(connection->strand(), Connection::Serve(connection), asio::detached);
}

void Server::Impl::OnConnectionEnd(std::int64_t id) {
  wire::GlobalNetworkCounters().ConnectionClosed();
  std::shared_ptr<Connection> last_reference;  // released outside the lock
  {
    std::lock_guard lock(mu_);
    auto it = connections_.find(id);
    if (it != connections_.end()) {
      last_reference = std::move(it->second);
      connections_.erase(it);
    }
    if (auto context = context_of_.find(id); context != context_of_.end()) {
      --connections_per_context_[context->second];
      context_of_.erase(context);
    }
  }
  cv_.notify_all();
}

bool Server::Impl::OnIoThread() const {
  const std::thread::id self = std::this_thread::get_id();
  return std::find(io_thread_ids_.begin(), io_thread_ids_.end(), self) != io_thread_ids_.end();
}

int Server::Impl::Run() {
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return stop_requested_; });
  }
  Shutdown();
  std::lock_guard lock(mu_);
  return stop_signal_;
}

void Server::Impl::RequestStop() {
  {
    std::lock_guard lock(mu_);
    stop_requested_ = true;
  }
  cv_.notify_all();
}

void Server::Impl::Stop() {
  RequestStop();
  bool on_io_thread;
  {
    std::lock_guard lock(mu_);
    on_io_thread = OnIoThread();
  }
  if (!on_io_thread) Shutdown();
}

void Server::Impl::Shutdown() {
  {
    std::unique_lock lock(mu_);
    if (shut_down_) return;
    if (shutting_down_) {
      cv_.wait(lock, [this] { return shut_down_; });
      return;
    }
    shutting_down_ = true;
  }
  // Order matters: connections accepted from here on see `stopping_` and end at once, and
  // every connection registered before is in the snapshot below (see OnAccepted's lock).
  stopping_.store(true);
  for (Listener& listener : listeners_) {
    asio::post(listener.strand, [&listener] {
      sys::error_code ignored;
      listener.acceptor.close(ignored);
    });
  }
  if (http_) http_->Close();
  if (signals_) {
    asio::post(*ios_[0], [this] {
      sys::error_code ignored;
      signals_->cancel(ignored);
    });
  }

  env_.handler->OnStopping();
  auto snapshot = [this] {
    std::vector<std::shared_ptr<Connection>> out;
    std::lock_guard lock(mu_);
    for (auto& [id, connection] : connections_) out.push_back(connection);
    return out;
  };
  for (const std::shared_ptr<Connection>& connection : snapshot()) {
    asio::post(connection->strand(), [connection] { connection->CloseIfIdle(); });
  }
  {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, options_.drain_timeout, [this] { return connections_.empty(); })) {
      log::Write(log::Severity::kWarning, "NETWORK", kLogDrainTimeout, "shutdown",
                 "Requests still running at the end of the drain period; interrupting them",
                 {{"connections", static_cast<std::uint64_t>(connections_.size())}});
      lock.unlock();
      const bool interrupted = env_.handler->OnDrainTimedOut();
      lock.lock();
      // An interrupted request fails at its next check: its error reply can still go out.
      if (interrupted) {
        cv_.wait_for(lock, kInterruptedRequestsWait, [this] { return connections_.empty(); });
      }
    }
  }
  for (const std::shared_ptr<Connection>& connection : snapshot()) {
    asio::post(connection->strand(), [connection] { connection->Close(); });
  }
  {
    // A connection whose command is still running on the handler's worker ends when the
    // command does: stopping its io_context first would free the handler under the command.
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, kForceCloseWait, [this] { return connections_.empty(); })) {
      log::Write(log::Severity::kWarning, "NETWORK", kLogDrainTimeout, "shutdown",
                 "Waiting for running commands to finish",
                 {{"connections", static_cast<std::uint64_t>(connections_.size())}});
    }
  }

  work_.clear();
  for (const std::unique_ptr<asio::io_context>& io : ios_) io->stop();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  {
    std::lock_guard lock(mu_);
    shut_down_ = true;
  }
  cv_.notify_all();
}

Server::Server(ServerOptions options, wire::RequestHandler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}

Server::~Server() = default;

Status Server::Start() { return impl_->Start(); }
std::uint16_t Server::port() const { return impl_->port(); }
std::vector<std::string> Server::listening_addresses() const {
  return impl_->listening_addresses();
}
int Server::Run() { return impl_->Run(); }
void Server::RequestStop() { impl_->RequestStop(); }
void Server::Stop() { impl_->Stop(); }

}  // namespace quarry::net
