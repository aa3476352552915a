// One client connection: the coroutine that reads frames, asks the handler, and writes replies.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/asio_internal.h"
#include "net/frame_buffer_internal.h"
#include "net/tls_options.h"
#include "wire/compression.h"
#include "wire/request_handler.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace quarry::net::internal {

// What connections share with their server, which outlives them all.
struct ConnectionEnv {
  wire::RequestHandler* handler = nullptr;
  std::vector<wire::Compressor> compressors;
  const std::atomic<bool>* stopping = nullptr;  // set once a graceful stop begins
  std::function<void(std::int64_t id)> on_end;  // called once when a connection's coroutine ends
  TlsMode tls_mode = TlsMode::kDisabled;
  boost::asio::ssl::context* tls_context = nullptr;  // set unless tls_mode is kDisabled
  // A message (or TLS handshake) whose bytes stop arriving for this long closes its connection.
  std::chrono::milliseconds partial_message_timeout{30000};
  IncomingMessageMemory* incoming_memory = nullptr;
};

struct TlsStream;
struct PendingResponse;
class ReadinessRing;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `ring`, when set, is the ring of the io thread that runs `strand`.
  Connection(tcp::socket socket, Strand strand, std::shared_ptr<ReadinessRing> ring,
             wire::ConnectionInfo info, const ConnectionEnv& env);
  ~Connection();

  const Strand& strand() const { return strand_; }
  const wire::ConnectionInfo& info() const { return info_; }

  // Serves the connection until the client leaves, a protocol error, close_after, or a stop.
  // Spawn it on strand(); it keeps `self` alive and calls env.on_end when it finishes.
  static boost::asio::awaitable<void> Serve(std::shared_ptr<Connection> self);

  // Called on strand() during a graceful stop: closes the socket if the connection is waiting
  // for a new request. A busy connection finishes its request and then sees the stop flag.
  void CloseIfIdle();
  // Called on strand(): closes the socket whatever the connection is doing.
  void Close();

 private:
  struct Outcome {
    std::string head;       // bytes to write; empty for no reply
    bson::Document tail;    // written after head when has_tail: an uncompressed reply's
    bool has_tail = false;  // document goes out from its own buffer, without a copy
    bool close = false;     // close after writing

    static Outcome Nothing(bool close) {
      Outcome out;
      out.close = close;
      return out;
    }
    static Outcome Send(std::string head, bool close) {
      Outcome out;
      out.head = std::move(head);
      out.close = close;
      return out;
    }
  };

  boost::asio::awaitable<void> Loop();
  // Under a TLS mode, looks at the client's first byte and runs the handshake when it opens
  // one; false when the connection should end (a failed handshake, a plain client under
  // requireTLS, a client that left).
  boost::asio::awaitable<bool> NegotiateTls();
  // Sends a reply whole; false when the connection failed. Needs the socket non-blocking.
  boost::asio::awaitable<bool> Write(const std::array<boost::asio::const_buffer, 2>& buffers);
  // Reads one whole frame into buffer_'s first frame_size_ bytes, after dropping the previous
  // one; false when the connection should end.
  boost::asio::awaitable<bool> ReadFrame();
  // Forgets the current frame, keeping the bytes received after it.
  void DropFrame();
  // Receives what has arrived into buffer_ after filled_, first growing it to `want` bytes
  // (waiting while the server's budget for incoming messages is spent).
  boost::asio::awaitable<std::size_t> ReadSome(std::size_t want, boost::system::error_code& ec);
  // Grows buffer_ to `want` bytes, waiting for room in the budget; false if the connection
  // closed meanwhile.
  boost::asio::awaitable<bool> Reserve(std::size_t want);
  // Called when a message (or handshake) is left part-received: closes the connection if no
  // byte arrives for partial_message_timeout. Costs nothing while messages arrive whole.
  void WatchForStall();
  void OnStallCheck(std::uint64_t received_before);
  boost::asio::awaitable<Outcome> Process(std::string_view message);
  // Starts the handler on `request`: its response when it answered before returning, as short
  // commands do, else nullopt and AwaitHandler waits for it. No coroutine frame, timer or
  // allocation for the short ones.
  std::optional<wire::Response> StartHandler(const wire::Request& request);
  // Waits (without holding the thread) for the asynchronous completion StartHandler began.
  boost::asio::awaitable<wire::Response> AwaitHandler(const wire::Request& request);
  // The reply to a request whose handler threw or never answered, logged.
  wire::Response HandlerFailed(const wire::Request& request, const std::string& what);
  Outcome Reply(const wire::Request& request, bson::Document body, bool compressible,
                bool close_after);

  tcp::socket socket_;
  std::unique_ptr<TlsStream> tls_;  // null for a plain connection
  Strand strand_;
  std::shared_ptr<ReadinessRing> ring_;  // null when the io thread does not poll
  std::uint64_t ring_watch_ = 0;         // the socket's watch in ring_, until Close
  wire::ConnectionInfo info_;
  const ConnectionEnv& env_;
  std::string log_context_;  // "conn12"
  std::unique_ptr<wire::ConnectionHandler> handler_;
  // Where each request's completion meets Process; one request runs at a time, so one is
  // reused. Shared with the completion, which may run after the connection is gone.
  std::shared_ptr<PendingResponse> pending_;
  // A written reply's head kept for the next one when it is at most kSpareHeadBytes (a
  // compressed reply's head is the whole message: that one is freed).
  static constexpr std::size_t kSpareHeadBytes = 4096;
  std::string spare_head_;
  wire::CompressionContext codec_;
  FrameBuffer buffer_;          // received bytes: the current frame (header included), then more
  std::size_t filled_ = 0;      // bytes of buffer_ received
  std::size_t frame_size_ = 0;  // of the current frame; 0 between frames
  bool idle_ = false;           // waiting for the first byte of a new frame
  bool closed_ = false;         // Close() was called
  // Stall detection: bytes received so far, whether a message is part-received, and whether
  // the timer is waiting.
  std::uint64_t received_ = 0;
  bool partial_ = false;
  bool stall_timer_armed_ = false;
  std::optional<boost::asio::steady_timer> stall_timer_;
};

}  // namespace quarry::net::internal
