// Helpers for net/ tests: a fake handler, a raw-socket client, a reply decoder and a fixture
// that runs a real net::Server on an ephemeral port.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bson/builder.h"
#include "bson/json.h"
#include "net/server.h"
#include "wire/client_messages.h"
#include "wire/compression.h"
#include "wire/message_header.h"
#include "wire/request.h"

namespace quarry::net::testing {

using namespace std::chrono_literals;

inline bson::Document Json(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

// Echoes the command name back, with a few commands that exercise the transport's options.
class FakeConnectionHandler : public wire::ConnectionHandler {
 public:
  explicit FakeConnectionHandler(std::atomic<int>* handled, Server** server)
      : handled_(handled), server_(server) {}
  ~FakeConnectionHandler() override {
    if (later_.joinable()) later_.join();
  }

  // "later" completes 300 ms afterwards from another thread, as a waiting getMore does.
  void HandleAsync(const wire::Request& request, Completion done) override {
    if (request.command_name() != "later") {
      done(Handle(request));
      return;
    }
    if (later_.joinable()) later_.join();
    later_ = std::thread([this, &request, done = std::move(done)] {
      std::this_thread::sleep_for(300ms);
      done(Handle(request));
    });
  }

  wire::Response Handle(const wire::Request& request) override {
    handled_->fetch_add(1);
    ++count_;
    const std::string name(request.command_name());
    if (name == "throw") throw std::runtime_error("boom");
    wire::Response response;
    if (name == "sleep") std::this_thread::sleep_for(400ms);
    if (name == "close") response.close_after = true;
    if (name == "nocompress") response.compressible = false;
    if (name == "silent") response.send = false;
    if (name == "shutdown") (*server_)->RequestStop();
    bson::DocumentBuilder b;
    b.AppendString("echo", name);
    b.AppendInt32("n", count_);
    b.AppendBool("compressed", request.was_compressed);
    b.AppendInt32("sequences", static_cast<std::int32_t>(request.sequences.size()));
    b.AppendInt64("bodySize", static_cast<std::int64_t>(request.body.size()));
    if (name == "big") b.AppendString("payload", std::string(3 * 1024 * 1024, 'z'));
    b.AppendDouble("ok", 1.0);
    response.body = std::move(b).Finish();
    return response;
  }

 private:
  std::atomic<int>* handled_;
  Server** server_;
  int count_ = 0;
  std::thread later_;
};

class FakeRequestHandler : public wire::RequestHandler {
 public:
  std::unique_ptr<wire::ConnectionHandler> OnConnect(const wire::ConnectionInfo& info) override {
    {
      std::lock_guard lock(mu);
      infos.push_back(info);
    }
    return std::make_unique<FakeConnectionHandler>(&handled, &server);
  }

  std::mutex mu;
  std::vector<wire::ConnectionInfo> infos;
  std::atomic<int> handled{0};
  Server* server = nullptr;
};

// A blocking client socket with timeouts.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port, bool ipv6 = false) {
    fd_ = ::socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    int rc;
    if (ipv6) {
      sockaddr_in6 addr{};
      addr.sin6_family = AF_INET6;
      addr.sin6_port = htons(port);
      addr.sin6_addr = in6addr_loopback;
      rc = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    } else {
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(port);
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      rc = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    }
    connected_ = rc == 0;
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool connected() const { return connected_; }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // One whole message, or nullopt on EOF, error or timeout.
  std::optional<std::string> Read(std::chrono::milliseconds timeout = 5000ms) {
    std::string header;
    if (!ReadExactly(16, timeout, &header)) return std::nullopt;
    const std::int32_t length = wire::ReadHeader(header.data()).message_length;
    if (length < 16) return std::nullopt;
    std::string rest;
    if (!ReadExactly(static_cast<std::size_t>(length) - 16, timeout, &rest)) return std::nullopt;
    return header + rest;
  }

  // True if the server closed the connection (EOF) within `timeout`.
  bool ClosedByPeer(std::chrono::milliseconds timeout = 5000ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char c;
    ssize_t n = ::recv(fd_, &c, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

  // True if nothing arrives within `timeout`.
  bool Silent(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(timeout.count())) == 0;
  }

 private:
  bool ReadExactly(std::size_t n, std::chrono::milliseconds timeout, std::string* out) {
    out->resize(n);
    std::size_t have = 0;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (have < n) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      ssize_t got = ::recv(fd_, out->data() + have, n - have, 0);
      if (got <= 0) return false;
      have += static_cast<std::size_t>(got);
    }
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
};

// Decodes a reply (OP_MSG, OP_REPLY, or either compressed) into its document.
struct DecodedReply {
  wire::MessageHeader header;
  std::int32_t inner_op_code = 0;
  bool compressed = false;
  std::uint8_t compressor_id = 0;
  bson::Document body;
};

inline DecodedReply Decode(const std::string& message) {
  DecodedReply out;
  out.header = wire::ReadHeader(message.data());
  std::string plain = message;
  if (out.header.op_code == 2012) {
    out.compressed = true;
    std::int32_t original = 0, size = 0;
    std::memcpy(&original, message.data() + 16, 4);
    std::memcpy(&size, message.data() + 20, 4);
    out.compressor_id = static_cast<std::uint8_t>(message[24]);
    wire::CompressionContext codec({wire::Compressor::kNoop, wire::Compressor::kSnappy,
                                    wire::Compressor::kZlib, wire::Compressor::kZstd});
    plain = message.substr(0, 16);
    Status s = codec.Decompress(static_cast<wire::Compressor>(out.compressor_id),
                                std::string_view(message).substr(25),
                                static_cast<std::size_t>(size), &plain);
    EXPECT_TRUE(s.ok()) << s.ToString();
    out.inner_op_code = original;
  } else {
    out.inner_op_code = out.header.op_code;
  }
  if (out.inner_op_code == 2013) {
    EXPECT_EQ(plain.substr(16, 5), std::string(5, '\0'));  // flagBits 0, kind 0
    out.body = bson::Document(plain.substr(21));
  } else if (out.inner_op_code == 1) {
    out.body = bson::Document(plain.substr(36));
  }
  return out;
}

// Starts a server on an ephemeral loopback port with the fake handler; stops it at the end.
class TransportTest : public ::testing::Test {
 protected:
  void StartServer(ServerOptions options = {}) {
    if (options.bind_addresses == std::vector<std::string>{"localhost"}) {
      options.bind_addresses = {"127.0.0.1"};
    }
    options.port = 0;
    options.io_threads = 2;
    server_ = std::make_unique<Server>(options, handler_);
    handler_.server = server_.get();
    Status s = server_->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    port_ = server_->port();
    ASSERT_NE(port_, 0);
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  std::string Msg(std::int32_t id, std::string_view json, std::uint32_t flags = 0) {
    return wire::BuildOpMsgRequest(id, Json(json), {}, flags);
  }

  FakeRequestHandler handler_;
  std::unique_ptr<Server> server_;
  std::uint16_t port_ = 0;
};
}  // namespace quarry::net::testing
