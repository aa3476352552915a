// The HTTP listener: Boost.Beast over the server's io_context, one coroutine per connection.
// Requests are small GETs (metrics scrapes, health probes), so each is read whole with tight
// limits, answered from the handler on the io thread, and written back.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>

#include "base/log.h"
#include "net/bind_addresses.h"
#include "net/http_listener_internal.h"

namespace quarry::net::internal {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace sys = boost::system;

namespace {

constexpr int kLogHttpListening = 23017;
constexpr int kLogHttpError = 23018;
// A scrape or probe sends a few hundred bytes; anything far larger is not one.
constexpr std::uint32_t kHeaderLimit = 16 * 1024;
constexpr std::uint64_t kBodyLimit = 64 * 1024;
// An idle keep-alive connection, or a client that stalls mid-request, is closed after this.
constexpr std::chrono::seconds kIdleTimeout{30};

}  // namespace

struct HttpListener::State {
  asio::io_context* io = nullptr;
  HttpOptions options;
  const std::atomic<bool>* stopping = nullptr;
  std::vector<tcp::acceptor> acceptors;
  std::vector<std::string> addresses;
};

namespace {

http::response<http::string_body> Respond(const HttpResponse& answer, unsigned version,
                                          bool keep_alive) {
  http::response<http::string_body> response{static_cast<http::status>(answer.status), version};
  response.set(http::field::server, "quarryd");
  response.set(http::field::content_type, answer.content_type);
  for (const auto& [name, value] : answer.headers) response.set(name, value);
  response.keep_alive(keep_alive);
  response.body() = answer.body;
  response.prepare_payload();
  return response;
}

// GCC 12 takes the sized delete of Asio's coroutine frames for a mismatch with their operator
// new once Serve's frame allocation is inlined into Accept (-Wmismatched-new-delete): a false
// alarm about Boost's own pair of functions.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

asio::awaitable<void> Serve(tcp::socket socket, std::shared_ptr<HttpListener::State> state) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  for (;;) {
    sys::error_code ec;
    http::request_parser<http::string_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(kBodyLimit);
    stream.expires_after(kIdleTimeout);
    co_await http::async_read(stream, buffer, parser,
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      // A malformed or oversized request gets 400; a closed or idle connection just ends.
      if (ec != http::error::end_of_stream && ec != beast::error::timeout &&
          ec != asio::error::operation_aborted && ec != asio::error::connection_reset &&
          ec != asio::error::eof) {
        HttpResponse bad;
        bad.status = 400;
        bad.body = "bad request: " + ec.message() + "\n";
        auto response = Respond(bad, 11, false);
        co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
      }
      break;
    }
    const http::request<http::string_body>& request = parser.get();
    const bool stopping = state->stopping->load();
    const std::string_view method(request.method_string().data(), request.method_string().size());
    const std::string_view target(request.target().data(), request.target().size());
    HttpRequest parsed;
    parsed.method = method;
    parsed.target = target;
    parsed.server_stopping = stopping;
    HttpResponse answer = state->options.handler(parsed);
    const bool keep_alive = request.keep_alive() && !stopping;
    auto response = Respond(answer, request.version(), keep_alive);
    co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
    if (ec || !keep_alive) break;
  }
  sys::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

asio::awaitable<void> Accept(tcp::acceptor* acceptor, std::shared_ptr<HttpListener::State> state) {
  for (;;) {
    sys::error_code ec;
    tcp::socket socket =
        co_await acceptor->async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !acceptor->is_open() || state->stopping->load()) {
      break;
    }
    if (ec) {
      log::Write(log::Severity::kWarning, "NETWORK", kLogHttpError, "httpListener",
                 "Error accepting an HTTP connection", {{"error", ec.message()}});
      asio::steady_timer timer(*state->io, std::chrono::milliseconds(100));
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    asio::co_spawn(*state->io, Serve(std::move(socket), state), asio::detached);
  }
}

#pragma GCC diagnostic pop

}  // namespace

HttpListener::HttpListener(std::shared_ptr<State> state) : state_(std::move(state)) {}

HttpListener::~HttpListener() = default;

StatusWith<std::unique_ptr<HttpListener>> HttpListener::Start(asio::io_context& io,
                                                              HttpOptions options,
                                                              const std::atomic<bool>* stopping) {
  auto state = std::make_shared<State>();
  state->io = &io;
  state->stopping = stopping;
  const std::vector<std::string> addresses = ExpandBindAddresses(options.bind_addresses);
  state->options = std::move(options);
  for (const std::string& address : addresses) {
    sys::error_code ec;
    const asio::ip::address ip = asio::ip::make_address(address, ec);
    if (ec) {
      return Status(ErrorCode::kSocketException,
                    "--httpBindIp takes IP addresses (or localhost), not '" + address + "'");
    }
    const tcp::endpoint endpoint(ip, state->options.port);
    tcp::acceptor acceptor(io);
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec && ip.is_v6()) acceptor.set_option(asio::ip::v6_only(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return Status(ErrorCode::kSocketException, "cannot listen for HTTP on " +
                                                     FormatHostPort(address, state->options.port) +
                                                     ": " + ec.message());
    }
    state->addresses.push_back(FormatHostPort(address, state->options.port));
    state->acceptors.push_back(std::move(acceptor));
  }
  for (tcp::acceptor& acceptor : state->acceptors) {
    asio::co_spawn(io, Accept(&acceptor, state), asio::detached);
  }
  for (const std::string& address : state->addresses) {
    log::Write(log::Severity::kInfo, "NETWORK", kLogHttpListening, "listener",
               "Serving HTTP (/metrics, /healthz) on", {{"address", address}});
  }
  return std::unique_ptr<HttpListener>(new HttpListener(std::move(state)));
}

void HttpListener::Close() {
  asio::post(*state_->io, [state = state_] {
    for (tcp::acceptor& acceptor : state->acceptors) {
      sys::error_code ignored;
      acceptor.close(ignored);
    }
  });
}

std::vector<std::string> HttpListener::addresses() const { return state_->addresses; }

}  // namespace quarry::net::internal
