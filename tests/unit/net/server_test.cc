// Server lifecycle: binding, limits, graceful stop, Run, signals.
#include "net/server.h"

#include <gtest/gtest.h>

#include <csignal>
#include <future>

#include "net_test_util.h"
#include "wire/network_counters.h"

namespace quarry::net {
namespace {

using namespace std::chrono_literals;
using testing::Decode;
using testing::DecodedReply;
using testing::FakeRequestHandler;
using testing::Json;
using testing::RawClient;

class ServerTest : public testing::TransportTest {};

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

TEST_F(ServerTest, AsynchronousReplyHoldsNoIoThreadWhileItWaits) {
  ServerOptions options;
  options.io_threads = 1;
  StartServer(options);
  RawClient waiting(port_);
  RawClient other(port_);
  ASSERT_TRUE(waiting.Send(Msg(7, R"({"later": 1})")));
  std::this_thread::sleep_for(50ms);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(other.Send(Msg(8, R"({"ping": 1})")));
  std::optional<std::string> quick = other.Read();
  ASSERT_TRUE(quick);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 200ms);  // not queued behind "later"
  std::optional<std::string> late = waiting.Read();
  ASSERT_TRUE(late);
  EXPECT_EQ(Decode(*late).header.response_to, 7);
  EXPECT_EQ(Decode(*late).body.Get("echo").String(), "later");
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
  const std::int64_t rejected_before =
      wire::GlobalNetworkCounters().Snapshot().connections_rejected;
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

TEST_F(ServerTest, AddressNotOnThisHostFailsAndReleasesOtherAddresses) {
  ServerOptions options;
  options.bind_addresses = {"127.0.0.1,2001:db8::1"};  // a documentation-only address
  options.port = 0;
  options.io_threads = 1;
  Server server(options, handler_);
  Status s = server.Start();
  EXPECT_EQ(s.code(), ErrorCode::kSocketException);
  EXPECT_NE(s.reason().find("2001:db8::1"), std::string_view::npos) << s.reason();
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
