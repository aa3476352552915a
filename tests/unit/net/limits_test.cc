// Limits of the transport: stalled messages are dropped after the timeout, the receive buffer
// follows the bytes that arrived, the incoming-message budget, and TLS option parsing.
#include <gtest/gtest.h>

#include "net/frame_buffer_internal.h"
#include "net/tls_options.h"
#include "net_test_util.h"

namespace quarry::net {
namespace {

using namespace std::chrono_literals;
using internal::FrameBuffer;
using internal::IncomingMessageMemory;
using testing::RawClient;

class LimitsTest : public testing::TransportTest {};

std::string DeclaredHeader(std::int32_t length) {
  std::string header(16, '\0');
  std::memcpy(header.data(), &length, 4);
  const std::int32_t op_msg = 2013;
  std::memcpy(header.data() + 12, &op_msg, 4);
  return header;
}

TEST_F(LimitsTest, AMessageThatStopsArrivingIsClosedAfterTheTimeout) {
  ServerOptions options;
  options.partial_message_timeout = 200ms;
  StartServer(options);
  RawClient partial_header(port_);
  ASSERT_TRUE(partial_header.Send("\x10\x00"));
  RawClient partial_body(port_);
  ASSERT_TRUE(partial_body.Send(DeclaredHeader(1000) + std::string(100, '\0')));
  RawClient idle(port_);
  EXPECT_TRUE(partial_header.ClosedByPeer(5000ms));
  EXPECT_TRUE(partial_body.ClosedByPeer(5000ms));
  // A connection between messages is idle, not stalled.
  EXPECT_TRUE(idle.Silent(600ms));
  ASSERT_TRUE(idle.Send(Msg(1, R"({"ping": 1})")));
  EXPECT_TRUE(idle.Read());
}

TEST_F(LimitsTest, AMessageThatKeepsArrivingSlowlyIsNotClosed) {
  ServerOptions options;
  options.partial_message_timeout = 1000ms;
  StartServer(options);
  RawClient client(port_);
  const std::string message = Msg(1, R"({"ping": 1, "pad": "0123456789012345678901234567"})");
  for (char byte : message) {
    ASSERT_TRUE(client.Send(std::string(1, byte)));
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(client.Read());
}

TEST(FrameBufferTest, GrowthIsChargedToTheBudgetBeyondTheFreeAllowance) {
  IncomingMessageMemory budget(1 << 20);
  FrameBuffer buffer(&budget);
  ASSERT_TRUE(buffer.Grow(FrameBuffer::kUnchargedBytes));
  EXPECT_EQ(budget.held(), 0u);
  std::memset(buffer.data(), 'x', buffer.capacity());
  ASSERT_TRUE(buffer.Grow(FrameBuffer::kUnchargedBytes + 1000));
  EXPECT_EQ(budget.held(), 1000u);
  EXPECT_EQ(buffer.data()[FrameBuffer::kUnchargedBytes - 1], 'x');  // contents kept

  FrameBuffer other(&budget);
  EXPECT_FALSE(other.Grow(FrameBuffer::kUnchargedBytes + (1 << 20)));  // over the limit
  EXPECT_EQ(other.capacity(), 0u);
  EXPECT_EQ(budget.held(), 1000u);

  buffer.Free();
  EXPECT_EQ(budget.held(), 0u);
  EXPECT_TRUE(other.Grow(FrameBuffer::kUnchargedBytes + (1 << 20) - 1));
}

TEST(TlsOptionsTest, ParsesModesAndDisabledProtocolsAsMongodSpellsThem) {
  EXPECT_EQ(ParseTlsMode("requireTLS").value(), TlsMode::kRequireTls);
  EXPECT_EQ(ParseTlsMode("allowTLS").value(), TlsMode::kAllowTls);
  EXPECT_EQ(ParseTlsMode("preferTLS").value(), TlsMode::kPreferTls);
  EXPECT_EQ(ParseTlsMode("disabled").value(), TlsMode::kDisabled);
  EXPECT_EQ(ParseTlsMode("requireSSL").status().code(), ErrorCode::kBadValue);

  TlsProtocols disabled = ParseTlsDisabledProtocols("TLS1_0,TLS1_1").value();
  EXPECT_TRUE(disabled.tls1_0 && disabled.tls1_1);
  EXPECT_FALSE(disabled.tls1_2 || disabled.tls1_3);
  TlsProtocols none = ParseTlsDisabledProtocols("none").value();
  EXPECT_FALSE(none.tls1_0 || none.tls1_1 || none.tls1_2 || none.tls1_3);
  EXPECT_FALSE(ParseTlsDisabledProtocols("TLS1_2,SSL3").ok());
  EXPECT_FALSE(ParseTlsDisabledProtocols("TLS1_0,TLS1_1,TLS1_2,TLS1_3").ok());
}

TEST(TlsOptionsTest, ATlsModeNeedsACertificate) {
  TlsOptions options;
  options.mode = TlsMode::kRequireTls;
  Status status = CheckTlsOptions(options);
  EXPECT_EQ(status.code(), ErrorCode::kBadValue);
  EXPECT_NE(status.reason().find("tlsCertificateKeyFile"), std::string::npos);
  options.certificate_key_file = "/nonexistent/server.pem";
  EXPECT_NE(CheckTlsOptions(options).reason().find("cannot read"), std::string::npos);
}

}  // namespace
}  // namespace quarry::net
