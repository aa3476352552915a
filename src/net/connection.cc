// The per-connection coroutine. It owns everything about one client: the socket, the codec
// state, the handler and the frame buffer, and it touches them only from its strand.
#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>

#include "base/log.h"
#include "net/connection_internal.h"
#include "net/readiness_ring_internal.h"
#include "net/tls_internal.h"
#include "wire/limits.h"
#include "wire/message_header.h"
#include "wire/network_counters.h"
#include "wire/reply.h"
#include "wire/request.h"
#include "wire/zstd_splice.h"

namespace quarry::net::internal {
namespace {

namespace sys = boost::system;

// Log statement ids (stable numbers, as mongod gives each statement one).
constexpr int kLogConnectionEnded = 22944;
constexpr int kLogInvalidMessage = 22988;
constexpr int kLogReadError = 22989;
constexpr int kLogHandlerException = 23100;
constexpr int kLogReplyTooLarge = 23101;
constexpr int kLogConnectionFailed = 23102;
constexpr int kLogTlsHandshakeFailed = 23107;
constexpr int kLogTlsRequired = 23103;
constexpr int kLogTlsEstablished = 23104;
constexpr int kLogStalled = 23105;
constexpr int kLogWaitingForMemory = 23106;

// Frames are read in growing chunks, each at most twice what has arrived, so the memory a
// message holds follows the bytes the client actually sent, not the size its header declares.
constexpr std::size_t kFirstChunk = FrameBuffer::kUnchargedBytes;
// How often a connection waiting for room in the incoming-message budget tries again.
constexpr std::chrono::milliseconds kMemoryRetry{20};
// A connection keeps its frame buffer between requests only while it is this small: beyond it
// the memory is charged to the shared budget, which idle connections must not hold.
constexpr std::size_t kKeptBufferBytes = FrameBuffer::kUnchargedBytes;
// What one receive asks for at least: most requests and their headers fit in one.
constexpr std::size_t kReadAhead = 16 * 1024;
// OP_COMPRESSED's fields before the payload: originalOpcode, uncompressedSize, compressorId.
constexpr std::size_t kCompressedPrefix = 9;

std::int32_t NextReplyId() {
  static std::atomic<std::int32_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

bool IsOrdinaryDisconnect(const sys::error_code& ec) {
  return ec == boost::asio::error::eof || ec == boost::asio::error::operation_aborted ||
         ec == boost::asio::error::connection_reset || ec == boost::asio::error::bad_descriptor ||
         ec == boost::asio::error::broken_pipe;
}

}  // namespace

Connection::Connection(tcp::socket socket, Strand strand, std::shared_ptr<ReadinessRing> ring,
                       wire::ConnectionInfo info, const ConnectionEnv& env)
    : socket_(std::move(socket)),
      strand_(std::move(strand)),
      ring_(std::move(ring)),
      info_(std::move(info)),
      env_(env),
      log_context_("conn" + std::to_string(info_.id)),
      codec_(env.compressors),
      buffer_(env.incoming_memory) {}

Connection::~Connection() {
  // A connection destroyed without Close (its io_context went first) still leaves the ring.
  if (ring_ != nullptr) ring_->Forget(ring_watch_);
}

void Connection::CloseIfIdle() {
  if (idle_) Close();
}

void Connection::Close() {
  closed_ = true;
  if (ring_ != nullptr) {
    ring_->Forget(ring_watch_);  // before the close: the ring's reference would keep it open
    ring_watch_ = 0;
  }
  sys::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

boost::asio::awaitable<void> Connection::Serve(std::shared_ptr<Connection> self) {
  if (self->ring_ != nullptr && !self->closed_) {
    self->ring_watch_ = self->ring_->Watch(self->socket_.native_handle());
  }
  try {
    if (co_await self->NegotiateTls()) {
      self->handler_ = self->env_.handler->OnConnect(self->info_);
      if (self->handler_ != nullptr) co_await self->Loop();
    }
  } catch (const std::exception& e) {
    log::Write(log::Severity::kWarning, "NETWORK", kLogConnectionFailed, self->log_context_,
               "Connection failed", {{"remote", self->info_.remote}, {"error", e.what()}});
  } catch (...) {
    log::Write(log::Severity::kWarning, "NETWORK", kLogConnectionFailed, self->log_context_,
               "Connection failed", {{"remote", self->info_.remote}, {"error", "unknown"}});
  }
  // The handler goes first, so server/'s per-connection state is released before the server
  // counts the connection as gone (a graceful stop waits for that).
  self->handler_.reset();
  self->Close();
  self->buffer_.Free();
  if (self->stall_timer_) self->stall_timer_->cancel();
  const std::int64_t remaining = wire::GlobalNetworkCounters().Snapshot().connections_current - 1;
  log::WriteChatter("NETWORK", kLogConnectionEnded, self->log_context_, "Connection ended",
                    {{"remote", self->info_.remote},
                     {"connectionId", self->info_.id},
                     {"connectionCount", remaining}});
  // Nothing may touch env_ after this: the server may finish stopping.
  self->env_.on_end(self->info_.id);
}

boost::asio::awaitable<void> Connection::Loop() {
  wire::NetworkCounters& counters = wire::GlobalNetworkCounters();
  while (!env_.stopping->load()) {
    if (!co_await ReadFrame()) break;
    Outcome outcome = co_await Process(std::string_view(buffer_.data(), frame_size_));
    if (!outcome.head.empty()) {
      const std::array<boost::asio::const_buffer, 2> buffers = {
          boost::asio::buffer(outcome.head), outcome.has_tail
                                                 ? boost::asio::buffer(outcome.tail.bytes())
                                                 : boost::asio::const_buffer()};
      // Counted before the write, not after it completes: a client that has read this reply
      // and then asks for serverStatus on another connection must see these bytes. (A write
      // that fails halfway is then over-counted; the connection closes anyway.)
      counters.AddPhysicalOut(static_cast<std::int64_t>(boost::asio::buffer_size(buffers)));
      if (!co_await Write(buffers)) break;
      if (outcome.head.capacity() <= kSpareHeadBytes) spare_head_ = std::move(outcome.head);
    }
    if (outcome.close) break;
  }
}

boost::asio::awaitable<bool> Connection::Write(
    const std::array<boost::asio::const_buffer, 2>& buffers) {
  sys::error_code ec;
  if (tls_ != nullptr) {
    co_await boost::asio::async_write(tls_->stream, buffers,
                                      boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    co_return !ec;
  }
  // A reply usually fits the socket's send buffer: sent here, it completes without a trip
  // through the reactor, which would cost a scheduler hand-off and another epoll_wait.
  const std::size_t total = boost::asio::buffer_size(buffers);
  std::size_t sent = socket_.write_some(buffers, ec);
  if (ec == boost::asio::error::would_block) {
    ec.clear();
    sent = 0;
  }
  if (ec) co_return false;
  if (sent == total) co_return true;
  // The client reads slowly: the rest waits for room without holding the thread.
  std::array<boost::asio::const_buffer, 2> rest = buffers;
  for (boost::asio::const_buffer& part : rest) {
    const std::size_t skip = std::min(sent, part.size());
    part += skip;
    sent -= skip;
  }
  co_await boost::asio::async_write(socket_, rest,
                                    boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  co_return !ec;
}

void Connection::DropFrame() {
  // Bytes after the frame are the start of the next one (a client may send before it reads).
  const std::size_t leftover = filled_ - frame_size_;
  if (leftover > 0 && frame_size_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + frame_size_, leftover);
  }
  filled_ = leftover;
  frame_size_ = 0;
  if (filled_ == 0 && buffer_.capacity() > kKeptBufferBytes) buffer_.Free();
}

boost::asio::awaitable<bool> Connection::Reserve(std::size_t want) {
  bool logged = false;
  while (!buffer_.Grow(want)) {
    // Every byte of the budget is held by messages still arriving. This one waits for room;
    // if none frees up, the stall check closes it like any message that stopped arriving.
    if (!logged) {
      log::Write(log::Severity::kWarning, "NETWORK", kLogWaitingForMemory, log_context_,
                 "Waiting for memory: incoming messages hold the whole budget",
                 {{"remote", info_.remote},
                  {"wanted", static_cast<std::uint64_t>(want)},
                  {"held", static_cast<std::uint64_t>(env_.incoming_memory->held())},
                  {"limit", static_cast<std::uint64_t>(env_.incoming_memory->limit())}});
      logged = true;
    }
    partial_ = true;
    WatchForStall();
    boost::asio::steady_timer retry(strand_, kMemoryRetry);
    sys::error_code ec;
    co_await retry.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    if (closed_ || env_.stopping->load()) co_return false;
  }
  co_return true;
}

boost::asio::awaitable<std::size_t> Connection::ReadSome(std::size_t want,
                                                         boost::system::error_code& ec) {
  if (buffer_.capacity() < want && !co_await Reserve(want)) {
    ec = boost::asio::error::operation_aborted;
    co_return 0;
  }
  // Whatever has arrived, up to the buffer's end: one receive usually brings a whole small
  // request, header and body together.
  const auto space = boost::asio::buffer(buffer_.data() + filled_, buffer_.capacity() - filled_);
  const std::size_t n =
      tls_ == nullptr ? co_await socket_.async_read_some(
                            space, boost::asio::redirect_error(boost::asio::use_awaitable, ec))
                      : co_await tls_->stream.async_read_some(
                            space, boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  wire::GlobalNetworkCounters().AddPhysicalIn(static_cast<std::int64_t>(n));
  filled_ += n;
  received_ += n;
  co_return n;
}

void Connection::WatchForStall() {
  if (stall_timer_armed_) return;  // already waiting; it re-arms itself while bytes arrive
  if (!stall_timer_) stall_timer_.emplace(strand_);
  stall_timer_armed_ = true;
  stall_timer_->expires_after(env_.partial_message_timeout);
  stall_timer_->async_wait([weak = weak_from_this(), before = received_](sys::error_code ec) {
    const std::shared_ptr<Connection> self = weak.lock();
    if (self == nullptr) return;
    self->stall_timer_armed_ = false;
    if (!ec) self->OnStallCheck(before);
  });
}

void Connection::OnStallCheck(std::uint64_t received_before) {
  if (!partial_ || closed_) return;  // the message completed; the next partial one re-arms
  if (received_ != received_before) {
    WatchForStall();  // still arriving, however slowly
    return;
  }
  log::Write(log::Severity::kInfo, "NETWORK", kLogStalled, log_context_,
             "Closing a connection whose message stopped arriving",
             {{"remote", info_.remote},
              {"received", static_cast<std::uint64_t>(filled_)},
              {"tls", tls_ != nullptr},
              {"timeoutMillis", static_cast<std::int64_t>(env_.partial_message_timeout.count())}});
  Close();
}

boost::asio::awaitable<bool> Connection::NegotiateTls() {
  if (env_.tls_mode == TlsMode::kDisabled) co_return true;
  // Peek at the first byte without taking it: a plain client's message stays in the socket for
  // ReadFrame, and a TLS record goes to the handshake.
  sys::error_code ec;
  unsigned char first = 0;
  std::size_t peeked = 0;
  idle_ = true;
  while (peeked == 0) {
    co_await socket_.async_wait(tcp::socket::wait_read,
                                boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    if (ec) co_return false;
    peeked = socket_.receive(boost::asio::buffer(&first, 1), tcp::socket::message_peek, ec);
    if (ec == boost::asio::error::would_block) {
      ec.clear();
      continue;
    }
    if (ec || peeked == 0) co_return false;  // the client left without a word
  }
  idle_ = false;
  if (first != kTlsHandshakeRecord) {
    if (env_.tls_mode != TlsMode::kRequireTls) co_return true;
    log::Write(log::Severity::kInfo, "NETWORK", kLogTlsRequired, log_context_,
               "Refusing a connection that does not begin with a TLS handshake: the server "
               "requires TLS (tlsMode requireTLS)",
               {{"remote", info_.remote}});
    co_return false;
  }
  tls_ = std::make_unique<TlsStream>(socket_, *env_.tls_context);
  partial_ = true;
  WatchForStall();
  co_await tls_->stream.async_handshake(
      boost::asio::ssl::stream_base::server,
      boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  partial_ = false;
  if (ec) {
    log::Write(log::Severity::kWarning, "NETWORK", kLogTlsHandshakeFailed, log_context_,
               "TLS handshake failed", {{"remote", info_.remote}, {"error", ec.message()}});
    co_return false;
  }
  log::WriteChatter("NETWORK", kLogTlsEstablished, log_context_, "TLS connection established",
                    {{"remote", info_.remote}, {"protocol", NegotiatedProtocol(*tls_)}});
  co_return true;
}

boost::asio::awaitable<bool> Connection::ReadFrame() {
  DropFrame();
  sys::error_code ec;
  idle_ = filled_ == 0;
  while (filled_ < wire::kHeaderSize) {
    if (filled_ > 0) {
      partial_ = true;
      WatchForStall();
    }
    const std::size_t before = filled_;
    co_await ReadSome(std::max(buffer_.capacity(), kReadAhead), ec);
    idle_ = false;
    if (ec) {
      if (!IsOrdinaryDisconnect(ec) || before != 0 || filled_ != 0) {
        log::Write(log::Severity::kInfo, "NETWORK", kLogReadError, log_context_,
                   "Error reading a message header",
                   {{"remote", info_.remote}, {"error", ec.message()}});
      }
      co_return false;
    }
  }

  const wire::MessageHeader header = wire::ReadHeader(buffer_.data());
  Status length = wire::CheckMessageLength(header.message_length);
  if (!length.ok()) {
    log::Write(log::Severity::kWarning, "NETWORK", kLogInvalidMessage, log_context_,
               "Closing connection after an invalid message",
               {{"remote", info_.remote}, {"error", length.ToString()}});
    co_return false;
  }
  const auto total = static_cast<std::size_t>(header.message_length);
  while (filled_ < total) {
    partial_ = true;
    WatchForStall();
    // At most twice what has arrived: memory follows the bytes sent, not the size declared.
    const std::size_t target = std::min(total, std::max(filled_ * 2, kFirstChunk));
    co_await ReadSome(std::max(buffer_.capacity(), target), ec);
    if (ec) {
      log::Write(log::Severity::kInfo, "NETWORK", kLogReadError, log_context_,
                 "Connection closed in the middle of a message",
                 {{"remote", info_.remote},
                  {"error", ec.message()},
                  {"messageLength", header.message_length},
                  {"received", static_cast<std::uint64_t>(filled_)}});
      co_return false;
    }
  }
  partial_ = false;
  frame_size_ = total;
  wire::GlobalNetworkCounters().AddRequest();
  co_return true;
}

boost::asio::awaitable<Connection::Outcome> Connection::Process(std::string_view message) {
  wire::NetworkCounters& counters = wire::GlobalNetworkCounters();
  wire::Request request;
  Status parsed = wire::ParseRequest(message, codec_, &request);
  counters.AddLogicalIn(static_cast<std::int64_t>(request.logical_size));
  if (request.decompressed != nullptr) {
    counters.AddDecompressed(
        request.compressor,
        static_cast<std::int64_t>(request.physical_size - wire::kHeaderSize - kCompressedPrefix),
        static_cast<std::int64_t>(request.logical_size - wire::kHeaderSize));
  }

  if (!parsed.ok()) {
    const bool close = IsInCategory(parsed.code(), kCloseConnection);
    log::Write(log::Severity::kWarning, "NETWORK", kLogInvalidMessage, log_context_,
               close ? "Closing connection after an invalid message" : "Invalid message",
               {{"remote", info_.remote},
                {"error", parsed.ToString()},
                {"code", static_cast<int>(parsed.code())},
                {"requestId", request.request_id}});
    if (close) co_return Outcome::Nothing(/*close=*/true);
    if (request.more_to_come()) co_return Outcome::Nothing(/*close=*/false);
    co_return Reply(request, wire::BuildErrorReply(parsed), /*compressible=*/true,
                    /*close_after=*/false);
  }

  // (No co_await inside a conditional expression: GCC 12 destroys its temporaries twice.)
  std::optional<wire::Response> answered = StartHandler(request);
  if (!answered.has_value()) answered = co_await AwaitHandler(request);
  wire::Response& response = *answered;
  // A moreToCome client reads no reply; sending one would desynchronise its stream.
  if (request.more_to_come() || !response.send) co_return Outcome::Nothing(response.close_after);
  co_return Reply(request, std::move(response.body), response.compressible, response.close_after);
}

// Where an asynchronous completion meets the waiting coroutine.
struct PendingResponse {
  PendingResponse(const Strand& strand, std::shared_ptr<ReadinessRing> ring)
      : timer(strand, boost::asio::steady_timer::time_point::max()), ring(std::move(ring)) {}
  boost::asio::steady_timer timer;  // never expires: cancelled to wake the coroutine
  // The io thread's ring, nudged with the completion so that a polling thread sees it at once.
  const std::shared_ptr<ReadinessRing> ring;
  std::mutex mu;
  bool handler_returned = false;           // guarded by mu
  std::optional<wire::Response> response;  // guarded by mu
};

std::optional<wire::Response> Connection::StartHandler(const wire::Request& request) {
  try {
    if (pending_ == nullptr) pending_ = std::make_shared<PendingResponse>(strand_, ring_);
    {
      std::lock_guard lock(pending_->mu);
      pending_->handler_returned = false;
      pending_->response.reset();
    }
    handler_->HandleAsync(request, [pending = pending_](wire::Response response) {
      std::unique_lock lock(pending->mu);
      pending->response = std::move(response);
      if (!pending->handler_returned) return;  // answered synchronously: no wake-up needed
      lock.unlock();
      boost::asio::post(pending->timer.get_executor(), [pending] { pending->timer.cancel(); });
      if (pending->ring != nullptr) pending->ring->Nudge();
    });
    std::lock_guard lock(pending_->mu);
    pending_->handler_returned = true;
    if (!pending_->response.has_value()) return std::nullopt;
    wire::Response response = std::move(*pending_->response);
    pending_->response.reset();
    return response;
  } catch (const std::exception& e) {
    return HandlerFailed(request, e.what());
  } catch (...) {
    return HandlerFailed(request, "unknown exception");
  }
}

boost::asio::awaitable<wire::Response> Connection::AwaitHandler(const wire::Request& request) {
  std::string what;
  try {
    // The completion's cancel is posted to this strand, so it cannot run before this wait is
    // registered: no wake-up is lost.
    const std::shared_ptr<PendingResponse> pending = pending_;
    sys::error_code ec;
    co_await pending->timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    std::lock_guard lock(pending->mu);
    if (pending->response.has_value()) {
      wire::Response response = std::move(*pending->response);
      pending->response.reset();
      co_return response;
    }
    what = "the request was abandoned";
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown exception";
  }
  co_return HandlerFailed(request, what);
}

wire::Response Connection::HandlerFailed(const wire::Request& request, const std::string& what) {
  // A completion that still comes for this request must land in its own slot, not in the next
  // request's: the next one gets a new slot.
  pending_.reset();
  log::Write(log::Severity::kError, "NETWORK", kLogHandlerException, log_context_,
             "Exception escaped the request handler",
             {{"remote", info_.remote}, {"command", request.command_name()}, {"error", what}});
  wire::Response response;
  response.body = wire::BuildErrorReply(
      Status(ErrorCode::kInternalError, "unexpected error while running the command: " + what));
  return response;
}

Connection::Outcome Connection::Reply(const wire::Request& request, bson::Document body,
                                      bool compressible, bool close_after) {
  wire::NetworkCounters& counters = wire::GlobalNetworkCounters();
  const std::int32_t reply_id = NextReplyId();
  // The previous reply's head buffer, when small: most replies then allocate nothing here.
  std::string head = std::move(spare_head_);
  auto prefix = [&](std::size_t doc_size) {
    head.clear();
    if (request.op_code == wire::OpCode::kQuery) {
      wire::AppendOpReplyPrefix(reply_id, request.request_id, doc_size, &head);
    } else {
      wire::AppendOpMsgPrefix(reply_id, request.request_id, doc_size, &head);
    }
  };
  prefix(body.size());
  if (head.size() + body.size() > wire::kMaxMessageSizeBytes) {
    log::Write(log::Severity::kError, "NETWORK", kLogReplyTooLarge, log_context_, "Reply too large",
               {{"command", request.command_name()},
                {"size", static_cast<std::uint64_t>(head.size() + body.size())}});
    body = wire::BuildErrorReply(Status(ErrorCode::kBSONObjectTooLarge,
                                        "reply of " + std::to_string(head.size() + body.size()) +
                                            " bytes exceeds maxMessageSizeBytes (" +
                                            std::to_string(wire::kMaxMessageSizeBytes) + ")"));
    prefix(body.size());
  }
  const std::size_t logical_size = head.size() + body.size();
  counters.AddLogicalOut(static_cast<std::int64_t>(logical_size));

  if (request.was_compressed && compressible && request.compressor == wire::Compressor::kZstd) {
    if (std::optional<std::string> spliced = wire::SpliceZstdMessage(head, body)) {
      counters.AddCompressed(
          request.compressor, static_cast<std::int64_t>(logical_size - wire::kHeaderSize),
          static_cast<std::int64_t>(spliced->size() - wire::kHeaderSize - kCompressedPrefix));
      return Outcome::Send(std::move(*spliced), close_after);
    }
  }
  if (request.was_compressed && compressible) {
    head.append(body.bytes());
    std::string compressed = codec_.CompressMessage(head, request.compressor);
    if (wire::ReadHeader(compressed.data()).op_code ==
        static_cast<std::int32_t>(wire::OpCode::kCompressed)) {
      counters.AddCompressed(
          request.compressor, static_cast<std::int64_t>(logical_size - wire::kHeaderSize),
          static_cast<std::int64_t>(compressed.size() - wire::kHeaderSize - kCompressedPrefix));
      return Outcome::Send(std::move(compressed), close_after);
    }
    return Outcome::Send(std::move(head), close_after);
  }
  Outcome out = Outcome::Send(std::move(head), close_after);
  out.tail = std::move(body);
  out.has_tail = true;
  return out;
}

}  // namespace quarry::net::internal
