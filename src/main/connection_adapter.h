// Connects net/'s handler interface to server/'s sessions. net/ and server/ never include each
// other (docs/DESIGN.md), so the two meet here.
#pragma once

#include <memory>

#include "net/request_handler.h"
#include "server/service.h"

namespace quarry::main {

class ConnectionAdapter : public net::RequestHandler {
 public:
  explicit ConnectionAdapter(server::Service& service) : service_(service) {}
  std::unique_ptr<net::ConnectionHandler> OnConnect(const net::ConnectionInfo& info) override;

 private:
  server::Service& service_;
};

}  // namespace quarry::main
