// The connection protocol over real sockets: replies, compression, errors, moreToCome,
// malformed frames and byte counters.
#include <gtest/gtest.h>

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

class ConnectionTest : public testing::TransportTest {};

TEST_F(ConnectionTest, OpMsgRequestGetsOpMsgReplyWithMatchingResponseTo) {
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

TEST_F(ConnectionTest, OpQueryHandshakeGetsOpReply) {
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

TEST_F(ConnectionTest, ConnectionInfoNamesTheRemoteAddress) {
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

TEST_F(ConnectionTest, CompressedRequestGetsReplyCompressedTheSameWay) {
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

TEST_F(ConnectionTest, UncompressedRequestAndNonCompressibleReplyAreSentPlain) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"ping": 1})")));
  EXPECT_FALSE(Decode(*client.Read()).compressed);
  ASSERT_TRUE(
      client.Send(wire::CompressMessage(Msg(2, R"({"nocompress": 1})"), wire::Compressor::kZstd)));
  DecodedReply decoded = Decode(*client.Read());
  EXPECT_FALSE(decoded.compressed);
  EXPECT_TRUE(decoded.body.Get("compressed").Bool());
}

TEST_F(ConnectionTest, DisabledCompressorClosesTheConnection) {
  ServerOptions options;
  options.compressors = {wire::Compressor::kZlib};
  StartServer(options);
  RawClient client(port_);
  ASSERT_TRUE(
      client.Send(wire::CompressMessage(Msg(1, R"({"ping": 1})"), wire::Compressor::kSnappy)));
  EXPECT_TRUE(client.ClosedByPeer());
}

TEST_F(ConnectionTest, MalformedFrameClosesOnlyThatConnection) {
  StartServer();
  RawClient good(port_);
  ASSERT_TRUE(good.Send(Msg(1, R"({"ping": 1})")));
  ASSERT_TRUE(good.Read());

  std::string bad_bson = Msg(2, R"({"a": "xyz"})");
  bad_bson[21 + 4] = '\x42';  // unknown element type in the body
  std::string unknown_opcode = Msg(3, R"({"a": 1})");
  unknown_opcode[12] = '\x07';
  std::string bad_kind = Msg(4, R"({"a": 1})");
  bad_kind[20] = '\x09';
  const std::string malformed[] = {
      std::string("\x05\x00\x00\x00garbage-garbage", 19),          // length below 16
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

TEST_F(ConnectionTest, ClientVanishingMidFrameDoesNotDisturbOthers) {
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

TEST_F(ConnectionTest, SectionRuleViolationGetsErrorReplyAndKeepsConnection) {
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

TEST_F(ConnectionTest, MoreToComeGetsNoReply) {
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

TEST_F(ConnectionTest, SendFalseGetsNoReply) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(1, R"({"silent": 1})")));
  EXPECT_TRUE(client.Silent(300ms));
  ASSERT_TRUE(client.Send(Msg(2, R"({"ping": 1})")));
  EXPECT_EQ(Decode(*client.Read()).header.response_to, 2);
}

TEST_F(ConnectionTest, HandlerExceptionBecomesInternalErrorAndConnectionSurvives) {
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

TEST_F(ConnectionTest, CloseAfterClosesTheConnectionAfterTheReply) {
  StartServer();
  RawClient client(port_);
  ASSERT_TRUE(client.Send(Msg(5, R"({"close": 1})")));
  EXPECT_EQ(Decode(*client.Read()).body.Get("echo").String(), "close");
  EXPECT_TRUE(client.ClosedByPeer());
}

TEST_F(ConnectionTest, LargeRequestsAndRepliesRoundTrip) {
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

TEST_F(ConnectionTest, CountersSeeLogicalAndPhysicalBytes) {
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

}  // namespace
}  // namespace quarry::net
