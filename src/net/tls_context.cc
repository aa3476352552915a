// The server's OpenSSL context, configured as mongod configures its own from the net.tls options.
#include <openssl/ssl.h>

#include "net/tls_internal.h"

namespace quarry::net::internal {
namespace {

namespace ssl = boost::asio::ssl;

// Session resumption with client verification on needs an id context: OpenSSL refuses to resume
// a session without one, and the client sees a failed handshake instead.
constexpr unsigned char kSessionIdContext[] = "quarryd";

Status LoadError(const std::string& what, const std::string& path,
                 const boost::system::error_code& ec) {
  return Status(ErrorCode::kBadValue,
                "cannot load " + what + " from " + path + ": " + ec.message());
}

}  // namespace

StatusWith<std::unique_ptr<TlsContext>> MakeTlsContext(const TlsOptions& options) {
  auto context = std::make_unique<TlsContext>(ssl::context::tls_server);
  boost::system::error_code ec;
  ssl::context::options flags = ssl::context::default_workarounds | ssl::context::no_sslv2 |
                                ssl::context::no_sslv3 | ssl::context::single_dh_use;
  if (options.disabled.tls1_0) flags |= ssl::context::no_tlsv1;
  if (options.disabled.tls1_1) flags |= ssl::context::no_tlsv1_1;
  if (options.disabled.tls1_2) flags |= ssl::context::no_tlsv1_2;
  if (options.disabled.tls1_3) flags |= ssl::context::no_tlsv1_3;
  context->set_options(flags, ec);
  if (ec) return Status(ErrorCode::kBadValue, "cannot set TLS options: " + ec.message());
  // An encrypted key would make OpenSSL prompt on the terminal; without a password option it
  // fails to load instead.
  context->set_password_callback(
      [](std::size_t, ssl::context::password_purpose) { return std::string(); }, ec);
  context->use_certificate_chain_file(options.certificate_key_file, ec);
  if (ec) return LoadError("the certificate", options.certificate_key_file, ec);
  context->use_private_key_file(options.certificate_key_file, ssl::context::pem, ec);
  if (ec) return LoadError("the private key", options.certificate_key_file, ec);
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    return Status(ErrorCode::kBadValue, "the private key in " + options.certificate_key_file +
                                            " does not match its certificate");
  }
  SSL_CTX_set_session_id_context(context->native_handle(), kSessionIdContext,
                                 sizeof(kSessionIdContext) - 1);
  if (options.ca_file.empty()) {
    context->set_verify_mode(ssl::verify_none, ec);
    return context;
  }
  context->load_verify_file(options.ca_file, ec);
  if (ec) return LoadError("the CA certificates", options.ca_file, ec);
  // Tells clients which issuers the server accepts, so they send the right certificate.
  if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(options.ca_file.c_str())) {
    SSL_CTX_set_client_CA_list(context->native_handle(), names);
  }
  ssl::verify_mode verify = ssl::verify_peer;
  if (!options.allow_connections_without_certificates) verify |= ssl::verify_fail_if_no_peer_cert;
  context->set_verify_mode(verify, ec);
  if (ec) return Status(ErrorCode::kBadValue, "cannot set TLS verification: " + ec.message());
  return context;
}

std::string NegotiatedProtocol(TlsStream& tls) {
  const char* version = SSL_get_version(tls.stream.native_handle());
  return version != nullptr ? version : "";
}

}  // namespace quarry::net::internal
