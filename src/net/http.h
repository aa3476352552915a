// The HTTP listener's contract (--httpPort): what it serves comes from a handler that main/
// supplies; net/ only parses requests and writes responses (Boost.Beast, in http_listener.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quarry::net {

struct HttpRequest {
  std::string_view method;       // "GET", "POST", ...
  std::string_view target;       // "/metrics", "/healthz?x=1"
  bool server_stopping = false;  // a graceful stop has begun
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones, e.g. Allow
  std::string body;
};

// Runs on an io thread for each request: it must be quick and must not block.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpOptions {
  std::uint16_t port = 0;  // 0: no HTTP listener
  // --bind_ip-style entries (net/bind_addresses.h); loopback only unless told otherwise.
  std::vector<std::string> bind_addresses = {"127.0.0.1"};
  HttpHandler handler;
};

}  // namespace quarry::net
