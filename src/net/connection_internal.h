// One client connection: the coroutine that reads frames, asks the handler, and writes replies.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/asio_internal.h"
#include "wire/compression.h"
#include "wire/request_handler.h"

namespace quarry::net::internal {

// What connections share with their server, which outlives them all.
struct ConnectionEnv {
  wire::RequestHandler* handler = nullptr;
  std::vector<wire::Compressor> compressors;
  const std::atomic<bool>* stopping = nullptr;  // set once a graceful stop begins
  std::function<void(std::int64_t id)> on_end;  // called once when a connection's coroutine ends
};

class Connection {
 public:
  Connection(tcp::socket socket, Strand strand, wire::ConnectionInfo info,
             const ConnectionEnv& env);

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
  // Sends a reply whole; false when the connection failed. Needs the socket non-blocking.
  boost::asio::awaitable<bool> Write(const std::array<boost::asio::const_buffer, 2>& buffers);
  // Reads one whole frame into buffer_'s first frame_size_ bytes, after dropping the previous
  // one; false when the connection should end.
  boost::asio::awaitable<bool> ReadFrame();
  // Forgets the current frame, keeping the bytes received after it.
  void DropFrame();
  // Receives what has arrived into buffer_ after filled_, first growing it to `want` bytes.
  boost::asio::awaitable<std::size_t> ReadSome(std::size_t want, boost::system::error_code& ec);
  boost::asio::awaitable<Outcome> Process(std::string_view message);
  // Runs the handler, waiting (without holding the thread) for an asynchronous completion.
  boost::asio::awaitable<wire::Response> CallHandler(const wire::Request& request);
  Outcome Reply(const wire::Request& request, bson::Document body, bool compressible,
                bool close_after);

  tcp::socket socket_;
  Strand strand_;
  wire::ConnectionInfo info_;
  const ConnectionEnv& env_;
  std::string log_context_;  // "conn12"
  std::unique_ptr<wire::ConnectionHandler> handler_;
  wire::CompressionContext codec_;
  std::string buffer_;          // received bytes: the current frame (header included), then more
  std::size_t filled_ = 0;      // bytes of buffer_ received
  std::size_t frame_size_ = 0;  // of the current frame; 0 between frames
  bool idle_ = false;           // waiting for the first byte of a new frame
};

}  // namespace quarry::net::internal
