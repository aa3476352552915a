#include "main/connection_adapter.h"

namespace quarry::main {
namespace {

class SessionHandler : public net::ConnectionHandler {
 public:
  explicit SessionHandler(std::unique_ptr<server::Session> session) : session_(std::move(session)) {}

  net::Response Handle(const wire::Request& request) override {
    server::Reply reply = session_->Handle(request);
    net::Response response;
    response.send = reply.send;
    response.body = std::move(reply.body);
    response.compressible = reply.compressible;
    response.close_after = reply.close_after;
    return response;
  }

 private:
  std::unique_ptr<server::Session> session_;
};

}  // namespace

std::unique_ptr<net::ConnectionHandler> ConnectionAdapter::OnConnect(const net::ConnectionInfo& info) {
  return std::make_unique<SessionHandler>(service_.NewSession(info.id, info.remote));
}

}  // namespace quarry::main
