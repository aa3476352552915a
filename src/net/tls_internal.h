// TLS through Asio's OpenSSL streams: the server's context, built once from TlsOptions, and the
// stream a TLS connection reads and writes through. Included only by net/'s .cc files.
#pragma once

#include <memory>
#include <string>

// clang-format off
#include "net/asio_internal.h"
// clang-format on
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

#include "base/status.h"
#include "net/tls_options.h"

namespace quarry::net::internal {

using TlsContext = boost::asio::ssl::context;

// A TLS session over a connection's socket, which the connection keeps owning (closing the
// socket ends the session).
struct TlsStream {
  TlsStream(tcp::socket& socket, TlsContext& context) : stream(socket, context) {}
  boost::asio::ssl::stream<tcp::socket&> stream;
};

// The first byte of a TLS record that carries a handshake (a ClientHello opens with one).
inline constexpr unsigned char kTlsHandshakeRecord = 0x16;

// The server-side context: certificate and key, the CA that verifies client certificates (and
// whether one is required), the protocol versions allowed. kBadValue naming the file or the
// OpenSSL reason when one cannot be loaded.
StatusWith<std::unique_ptr<TlsContext>> MakeTlsContext(const TlsOptions& options);

// "TLSv1.3": the protocol a handshake settled on.
std::string NegotiatedProtocol(TlsStream& tls);

}  // namespace quarry::net::internal
