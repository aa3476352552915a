// The HTTP listener behind --httpPort: accepts on an io_context of the server's and serves
// each connection from a coroutine there (net/http_listener.cc). Folder-private: it exposes
// Asio types, which server.cc already sees.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "net/asio_internal.h"
#include "net/http.h"

namespace quarry::net::internal {

class HttpListener {
 public:
  // Binds every address of `options` (kSocketException names the one that failed) and starts
  // accepting on `io`. `stopping` is the server's graceful-stop flag; it must outlive this.
  static StatusWith<std::unique_ptr<HttpListener>> Start(asio::io_context& io, HttpOptions options,
                                                         const std::atomic<bool>* stopping);
  ~HttpListener();

  // Stops accepting (posted to the io_context). Open connections end after their current
  // response; the io_context's stop ends any still waiting.
  void Close();

  std::vector<std::string> addresses() const;

  struct State;

 private:
  explicit HttpListener(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace quarry::net::internal
