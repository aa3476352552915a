// Transport tests: a real net::Server on an ephemeral port with a tiny fake handler, driven
// through raw sockets.
#include "net/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "bson/builder.h"
#include "bson/json.h"
#include "wire/client_messages.h"
#include "wire/compression.h"
#include "wire/message_header.h"
#include "wire/network_counters.h"
#include "wire/request.h"

namespace quarry::net {
namespace {

using namespace std::chrono_literals;

bson::Document Json(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

// Echoes the command name back, with a few commands that exercise the transport's options.
class FakeConnectionHandler : public ConnectionHandler {
 public:
  explicit FakeConnectionHandler(std::atomic<int>* handled, Server** server)
      : handled_(handled), server_(server) {}

  Response Handle(const wire::Request& request) override {
    handled_->fetch_add(1);
    ++count_;
    const std::string name(request.command_name());
    if (name == "throw") throw std::runtime_error("boom");
    Response response;
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
};

class FakeRequestHandler : public RequestHandler {
 public:
  std::unique_ptr<ConnectionHandler> OnConnect(const ConnectionInfo& info) override {
    {
      std::lock_guard lock(mu);
      infos.push_back(info);
    }
    return std::make_unique<FakeConnectionHandler>(&handled, &server);
  }

  std::mutex mu;
  std::vector<ConnectionInfo> infos;
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

DecodedReply Decode(const std::string& message) {
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

class ServerTest : public ::testing::Test {
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

TEST_F(ServerTest, OpMsgRequestGetsOpMsgReplyWithMatchingResponseTo) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.Send(Msg(123, R"({"ping": 1, "$db": "admin"})")));
  std::optional<std::string> reply = client.Read();
  ASSERT_TRUE(reply);
  DecodedReply decoded = Decode(*reply);
  EXPECT_EQ(decoded.header.op_code, 2013);
  EXPECT_EQ(decoded.header.response_to, 123);
  EXPECT_EQ(decoded.header.message_length, static_cast<std::int32_t>(reply->size()));
  EXPECT_EQ(decoded.body.Get("echo").String(), "ping");
  EXPECT_EQ(decoded.body.Get("ok").Double(), 1.0);

  // Requests on one connection are answered in order, with increasing reply ids.
  ASSERT_TRUE(client.Send(Msg(124, R"({"a": 1})") + Msg(125, R"({"b": 1})")));
  DecodedReply first = Decode(*client.Read());
  DecodedReply second = Decode(*client.Read());
  EXPECT_EQ(first.header.response_to, 124);
  EXPECT_EQ(first.body.Get("echo").String(), "a");
  EXPECT_EQ(second.header.response_to, 125);
  EXPECT_EQ(second.body.Get("n").Int32(), 3);
  EXPECT_GT(second.header.request_id, first.header.request_id);
}

TEST_F(ServerTest, OpQueryHandshakeGetsOpReply) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(wire::BuildOpQueryRequest(9, "admin.$cmd", Json(R"({"isMaster": 1})"))));
  std::optional<std::string> reply = client.Read();
  ASSERT_TRUE(reply);
  DecodedReply decoded = Decode(*reply);
  EXPECT_EQ(decoded.header.op_code, 1);
  EXPECT_EQ(decoded.header.response_to, 9);
  EXPECT_EQ(decoded.body.Get("echo").String(), "isMaster");
}

TEST_F(ServerTest, ConnectionInfoNamesTheRemoteAddress) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"ping": 1})")));
  ASSERT_TRUE(client.Read());
  std::lock_guard lock(handler_.mu);
  ASSERT_EQ(handler_.infos.size(), 1u);
  EXPECT_EQ(handler_.infos[0].remote.rfind("127.0.0.1:", 0), 0u) << handler_.infos[0].remote;
  EXPECT_EQ(handler_.infos[0].local, "127.0.0.1:" + std::to_string(port_));
  EXPECT_GT(handler_.infos[0].id, 0);
}

TEST_F(ServerTest, CompressedRequestGetsReplyCompressedTheSameWay) {
  StartServer();
  for (wire::Compressor c :
       {wire::Compressor::kSnappy, wire::Compressor::kZlib, wire::Compressor::kZstd}) {
    SCOPED_TRACE(wire::CompressorName(c));
    const wire::NetworkCountersSnapshot before = wire::GlobalNetworkCounters().Snapshot();
    RawClient client(port_);
    std::string request = Msg(55, R"({"find": "c", "$db": "test", "filter": {}})");
    ASSERT_TRUE(client.Send(wire::CompressMessage(request, c)));
    std::optional<std::string> reply = client.Read();
    ASSERT_TRUE(reply);
    DecodedReply decoded = Decode(*reply);
    EXPECT_TRUE(decoded.compressed);
    EXPECT_EQ(decoded.compressor_id, static_cast<std::uint8_t>(c));
    EXPECT_EQ(decoded.inner_op_code, 2013);
    EXPECT_EQ(decoded.header.response_to, 55);
    EXPECT_TRUE(decoded.body.Get("compressed").Bool());
    EXPECT_EQ(decoded.body.Get("echo").String(), "find");

    const wire::NetworkCountersSnapshot after = wire::GlobalNetworkCounters().Snapshot();
    EXPECT_GT(after.ForCompressor(c).decompressor_bytes_out,
              before.ForCompressor(c).decompressor_bytes_out);
    EXPECT_GT(after.ForCompressor(c).compressor_bytes_in,
              before.ForCompressor(c).compressor_bytes_in);
  }
}

TEST_F(ServerTest, UncompressedRequestAndNonCompressibleReplyAreSentPlain) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"ping": 1})")));
  EXPECT_FALSE(Decode(*client.Read()).compressed);
  ASSERT_TRUE(client.Send(wire::CompressMessage(Msg(2, R"({"nocompress": 1})"),
                                                wire::Compressor::kZstd)));
  DecodedReply decoded = Decode(*client.Read());
  EXPECT_FALSE(decoded.compressed);
  EXPECT_TRUE(decoded.body.Get("compressed").Bool());
}

TEST_F(ServerTest, DisabledCompressorClosesTheConnection) {
  ServerOptions options;
  options.compressors = {wire::Compressor::kZlib};
  StartServer(options);
  RawClient client(port_);
  ASSERT_TRUE(client.Send(wire::CompressMessage(Msg(1, R"({"ping": 1})"),
                                                wire::Compressor::kSnappy)));
  EXPECT_TRUE(client.ClosedByPeer());
}

TEST_F(ServerTest, MalformedFrameClosesOnlyThatConnection) {
  StartServer();
  RawClient good(port_);
  ASSERT_TRUE(good.Send(Msg(1, R"({"ping": 1})")));
  ASSERT_TRUE(good.Read());

  std::string bad_bson = Msg(2, R"({"a": "xyz"})");
  bad_bson[21 + 4] = '\x42';  // unknown element type in the body
  std::string unknown_opcode = Msg(3, R"({"a": 1})");
  unknown_opcode[12] = '\x07';
  std::string bad_kind = Msg(4, R"({"a": 1})") ;
  bad_kind[20] = '\x09';
  const std::string malformed[] = {
      std::string("\x05\x00\x00\x00garbage-garbage", 19),  // length below 16
      std::string("\x00\x00\x00\x7f", 4) + std::string(12, '\0'),  // length above 48 MB
      bad_bson,
      unknown_opcode,
      bad_kind,
      Msg(5, R"({"a": 1})", 1u << 3),  // unknown required flag bit
  };
  for (const std::string& frame : malformed) {
    RawClient bad(port_);
    ASSERT_TRUE(bad.Send(frame));
    EXPECT_TRUE(bad.ClosedByPeer()) << "frame of " << frame.size() << " bytes";

    ASSERT_TRUE(good.Send(Msg(10, R"({"still": 1})")));
    std::optional<std::string> reply = good.Read();
    ASSERT_TRUE(reply);
    EXPECT_EQ(Decode(*reply).body.Get("echo").String(), "still");
  }
}

TEST_F(ServerTest, ClientVanishingMidFrameDoesNotDisturbOthers) {
  StartServer();
  {
    RawClient partial(port_);
    std::string message = Msg(1, R"({"ping": 1})");
    ASSERT_TRUE(partial.Send(message.substr(0, message.size() - 3)));
  }
  {
    RawClient header_only(port_);
    ASSERT_TRUE(header_only.Send(Msg(1, R"({"ping": 1})").substr(0, 10)));
  }
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(2, R"({"ping": 1})")));
  EXPECT_TRUE(client.Read());
}

TEST_F(ServerTest, SectionRuleViolationGetsErrorReplyAndKeepsConnection) {
  StartServer();
  RawClient client(port_);
  bson::Document body = Json(R"({"insert": "c", "documents": []})");
  bson::Document doc = Json(R"({"_id": 1})");
  ASSERT_TRUE(client.Send(wire::BuildOpMsgRequest(70, body, {{"documents", {doc}}})));
  std::optional<std::string> reply = client.Read();
  ASSERT_TRUE(reply);
  DecodedReply decoded = Decode(*reply);
  EXPECT_EQ(decoded.header.response_to, 70);
  EXPECT_EQ(decoded.body.Get("ok").Double(), 0.0);
  EXPECT_EQ(decoded.body.Get("code").Int32(), 40433);
  EXPECT_EQ(decoded.body.Get("codeName").String(), "Location40433");

  ASSERT_TRUE(client.Send(Msg(71, R"({"ping": 1})")));
  EXPECT_EQ(Decode(*client.Read()).header.response_to, 71);
}

TEST_F(ServerTest, MoreToComeGetsNoReply) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"insert": "c"})", wire::kMoreToCome)));
  EXPECT_TRUE(client.Silent(300ms));
  ASSERT_TRUE(client.Send(Msg(2, R"({"ping": 1})")));
  std::optional<std::string> reply = client.Read();
  ASSERT_TRUE(reply);
  DecodedReply decoded = Decode(*reply);
  EXPECT_EQ(decoded.header.response_to, 2);
  EXPECT_EQ(decoded.body.Get("n").Int32(), 2);  // the handler saw the w:0 write first
}

TEST_F(ServerTest, SendFalseGetsNoReply) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"silent": 1})")));
  EXPECT_TRUE(client.Silent(300ms));
  ASSERT_TRUE(client.Send(Msg(2, R"({"ping": 1})")));
  EXPECT_EQ(Decode(*client.Read()).header.response_to, 2);
}

TEST_F(ServerTest, HandlerExceptionBecomesInternalErrorAndConnectionSurvives) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(5, R"({"throw": 1})")));
  DecodedReply decoded = Decode(*client.Read());
  EXPECT_EQ(decoded.header.response_to, 5);
  EXPECT_EQ(decoded.body.Get("ok").Double(), 0.0);
  EXPECT_EQ(decoded.body.Get("code").Int32(), 1);
  EXPECT_EQ(decoded.body.Get("codeName").String(), "InternalError");
  ASSERT_TRUE(client.Send(Msg(6, R"({"ping": 1})")));
  EXPECT_EQ(Decode(*client.Read()).header.response_to, 6);
}

TEST_F(ServerTest, CloseAfterClosesTheConnectionAfterTheReply) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(5, R"({"close": 1})")));
  EXPECT_EQ(Decode(*client.Read()).body.Get("echo").String(), "close");
  EXPECT_TRUE(client.ClosedByPeer());
}

TEST_F(ServerTest, LargeRequestsAndRepliesRoundTrip) {
  StartServer();
  RawClient client(port_);
  bson::DocumentBuilder b;
  b.AppendInt32("big", 1);
  b.AppendString("pad", std::string(6 * 1024 * 1024, 'p'));
  bson::Document body = std::move(b).Finish();
  ASSERT_TRUE(client.Send(wire::BuildOpMsgRequest(8, body)));
  std::optional<std::string> reply = client.Read(10000ms);
  ASSERT_TRUE(reply);
  DecodedReply decoded = Decode(*reply);
  EXPECT_EQ(decoded.body.Get("bodySize").Int64(), static_cast<std::int64_t>(body.size()));
  EXPECT_EQ(decoded.body.Get("payload").String().size(), 3u * 1024 * 1024);

  // Compressed both ways, too.
  ASSERT_TRUE(client.Send(
      wire::CompressMessage(wire::BuildOpMsgRequest(9, body), wire::Compressor::kZstd)));
  reply = client.Read(10000ms);
  ASSERT_TRUE(reply);
  decoded = Decode(*reply);
  EXPECT_TRUE(decoded.compressed);
  EXPECT_LT(reply->size(), 100000u);
  EXPECT_EQ(decoded.body.Get("payload").String().size(), 3u * 1024 * 1024);
}

TEST_F(ServerTest, CountersSeeLogicalAndPhysicalBytes) {
  StartServer();
  const wire::NetworkCountersSnapshot before = wire::GlobalNetworkCounters().Snapshot();
  RawClient client(port_);
  std::string plain = Msg(1, R"({"ping": 1, "pad": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})");
  std::string compressed = wire::CompressMessage(plain, wire::Compressor::kZlib);
  ASSERT_TRUE(client.Send(compressed));
  std::optional<std::string> reply = client.Read();
  ASSERT_TRUE(reply);
  // The server counts physical bytes once its write completes, which may be just after the
  // client has read them.
  wire::NetworkCountersSnapshot after = wire::GlobalNetworkCounters().Snapshot();
  for (int wait_idx = 0; wait_idx < 100 && after.physical_bytes_out == before.physical_bytes_out;
       ++wait_idx) {
    std::this_thread::sleep_for(10ms);
    after = wire::GlobalNetworkCounters().Snapshot();
  }
  EXPECT_EQ(after.num_requests - before.num_requests, 1);
  EXPECT_EQ(after.physical_bytes_in - before.physical_bytes_in,
            static_cast<std::int64_t>(compressed.size()));
  EXPECT_EQ(after.bytes_in - before.bytes_in, static_cast<std::int64_t>(plain.size()));
  EXPECT_EQ(after.physical_bytes_out - before.physical_bytes_out,
            static_cast<std::int64_t>(reply->size()));
  EXPECT_GT(after.bytes_out - before.bytes_out, 0);
  EXPECT_EQ(after.connections_total_created - before.connections_total_created, 1);
}

TEST_F(ServerTest, StopReturnsWithClientsConnected) {
  ServerOptions options;
  options.drain_timeout = 1000ms;  // bounds the wait for the client stuck mid-frame below
  StartServer(options);
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int client_idx = 0; client_idx < 5; ++client_idx) {
    clients.push_back(std::make_unique<RawClient>(port_));
    ASSERT_TRUE(clients.back()->Send(Msg(1, R"({"ping": 1})")));
    ASSERT_TRUE(clients.back()->Read());
  }
  RawClient half_sent(port_);
  ASSERT_TRUE(half_sent.Send(Msg(1, R"({"ping": 1})").substr(0, 20)));

  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  for (auto& client : clients) EXPECT_TRUE(client->ClosedByPeer(1000ms));
  RawClient late(port_);
  EXPECT_FALSE(late.connected());
  server_->Stop();  // idempotent
}

TEST_F(ServerTest, StopLetsInFlightRequestFinishAndItsReplyGoOut) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(31, R"({"sleep": 1})")));
  std::this_thread::sleep_for(100ms);  // the handler is now running
  std::thread stopper([this] { server_->Stop(); });
  std::optional<std::string> reply = client.Read();
  ASSERT_TRUE(reply);
  EXPECT_EQ(Decode(*reply).header.response_to, 31);
  EXPECT_TRUE(client.ClosedByPeer());
  stopper.join();
}

TEST_F(ServerTest, DrainTimeoutClosesConnectionsStuckMidFrame) {
  ServerOptions options;
  options.drain_timeout = 300ms;
  StartServer(options);
  RawClient stuck(port_);
  ASSERT_TRUE(stuck.Send(Msg(1, R"({"ping": 1})").substr(0, 20)));
  std::this_thread::sleep_for(100ms);  // the server is now waiting for the rest of the frame
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, 250ms);
  EXPECT_LT(elapsed, 5s);
  EXPECT_TRUE(stuck.ClosedByPeer(1000ms));
}

TEST_F(ServerTest, SignalStopsAServerThatHandlesSignals) {
  ServerOptions options;
  options.stop_on_signals = true;
  StartServer(options);
  std::future<int> run = std::async(std::launch::async, [this] { return server_->Run(); });
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"ping": 1})")));
  ASSERT_TRUE(client.Read());
  ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);
  ASSERT_EQ(run.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(run.get(), SIGTERM);
  EXPECT_TRUE(client.ClosedByPeer(1000ms));
}

TEST_F(ServerTest, RunReturnsWhenAHandlerRequestsStop) {
  StartServer();
  std::future<int> run = std::async(std::launch::async, [this] { return server_->Run(); });
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"shutdown": 1})")));
  EXPECT_TRUE(client.Read());  // the reply still goes out
  ASSERT_EQ(run.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(run.get(), 0);
}

TEST_F(ServerTest, ConnectionsBeyondTheLimitAreRejected) {
  ServerOptions options;
  options.max_connections = 1;
  StartServer(options);
  const std::int64_t rejected_before = wire::GlobalNetworkCounters().Snapshot().connections_rejected;
  RawClient first(port_);
  ASSERT_TRUE(first.Send(Msg(1, R"({"ping": 1})")));
  ASSERT_TRUE(first.Read());
  RawClient second(port_);
  EXPECT_TRUE(second.ClosedByPeer());
  EXPECT_EQ(wire::GlobalNetworkCounters().Snapshot().connections_rejected, rejected_before + 1);
  ASSERT_TRUE(first.Send(Msg(2, R"({"ping": 1})")));
  EXPECT_TRUE(first.Read());
}

TEST_F(ServerTest, PortInUseFailsWithAClearMessage) {
  StartServer();
  ServerOptions options;
  options.bind_addresses = {"127.0.0.1"};
  options.port = port_;
  options.io_threads = 1;
  FakeRequestHandler other_handler;
  Server second(options, other_handler);
  Status s = second.Start();
  EXPECT_EQ(s.code(), ErrorCode::kSocketException);
  EXPECT_NE(s.reason().find("in use"), std::string_view::npos) << s.reason();
  EXPECT_NE(s.reason().find(std::to_string(port_)), std::string_view::npos) << s.reason();
}

TEST_F(ServerTest, UnresolvableAddressFailsClearly) {
  ServerOptions options;
  options.bind_addresses = {"no-such-host.invalid"};
  options.port = 0;
  options.io_threads = 1;
  Server server(options, handler_);
  Status s = server.Start();
  EXPECT_EQ(s.code(), ErrorCode::kSocketException);
  EXPECT_NE(s.reason().find("no-such-host.invalid"), std::string_view::npos) << s.reason();
}

TEST_F(ServerTest, LocalhostListensOnBothLoopbacksWhenIpv6Exists) {
  ServerOptions options;
  options.bind_addresses = {"localhost"};
  options.port = 0;
  options.io_threads = 1;
  server_ = std::make_unique<Server>(options, handler_);
  ASSERT_TRUE(server_->Start().ok());
  std::vector<std::string> addresses = server_->listening_addresses();
  ASSERT_FALSE(addresses.empty());
  EXPECT_EQ(addresses[0], "127.0.0.1:" + std::to_string(server_->port()));
  RawClient v4(server_->port());
  ASSERT_TRUE(v4.Send(Msg(1, R"({"ping": 1})")));
  EXPECT_TRUE(v4.Read());
  if (addresses.size() == 2) {
    EXPECT_EQ(addresses[1], "[::1]:" + std::to_string(server_->port()));
    RawClient v6(server_->port(), /*ipv6=*/true);
    ASSERT_TRUE(v6.connected());
    ASSERT_TRUE(v6.Send(Msg(2, R"({"ping": 1})")));
    EXPECT_TRUE(v6.Read());
  }
}

}  // namespace
}  // namespace quarry::net
