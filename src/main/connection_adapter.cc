#include "main/connection_adapter.h"

namespace quarry::main {
namespace {

net::Response ToResponse(server::Reply reply) {
  net::Response response;
  response.send = reply.send;
  response.body = std::move(reply.body);
  response.compressible = reply.compressible;
  response.close_after = reply.close_after;
  return response;
}

class SessionHandler : public net::ConnectionHandler {
 public:
  explicit SessionHandler(std::unique_ptr<server::Session> session) : session_(std::move(session)) {}

  net::Response Handle(const wire::Request& request) override {
    return ToResponse(session_->Handle(request));
  }

  void HandleAsync(const wire::Request& request, Completion done) override {
    session_->HandleAsync(request, [done = std::move(done)](server::Reply reply) {
      done(ToResponse(std::move(reply)));
    });
  }

 private:
  std::unique_ptr<server::Session> session_;
};

}  // namespace

std::unique_ptr<net::ConnectionHandler> ConnectionAdapter::OnConnect(const net::ConnectionInfo& info) {
  return std::make_unique<SessionHandler>(service_.NewSession(info.id, info.remote));
}

}  // namespace quarry::main
