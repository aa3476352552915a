// TLS settings of the listener, as mongod's --tlsMode family of options spells them. Plain data:
// OpenSSL stays inside net/'s .cc files.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::net {

// mongod's net.tls.mode. allowTLS and preferTLS both accept plain and TLS clients on the same
// port (they differ only for connections a mongod makes to other members, which Quarry does
// not); requireTLS refuses plain clients.
enum class TlsMode { kDisabled, kAllowTls, kPreferTls, kRequireTls };

// The protocol versions --tlsDisabledProtocols can name.
struct TlsProtocols {
  bool tls1_0 = false;
  bool tls1_1 = false;
  bool tls1_2 = false;
  bool tls1_3 = false;
};

struct TlsOptions {
  TlsMode mode = TlsMode::kDisabled;
  std::string certificate_key_file;  // PEM: the server's certificate chain and private key
  std::string ca_file;  // PEM: when set, clients are asked for a certificate verified against it
  bool allow_connections_without_certificates = false;
  // mongod's default: TLS 1.0 off whenever a later version is available.
  TlsProtocols disabled = {.tls1_0 = true};
};

// "disabled", "allowTLS", "preferTLS", "requireTLS"; kBadValue otherwise.
StatusWith<TlsMode> ParseTlsMode(std::string_view name);
std::string_view TlsModeName(TlsMode mode);

// A comma-separated list of TLS1_0, TLS1_1, TLS1_2, TLS1_3, or "none"; kBadValue otherwise.
StatusWith<TlsProtocols> ParseTlsDisabledProtocols(std::string_view list);

// Checks the combination before anything is opened: a TLS mode needs a certificate, and the
// files must be readable. kBadValue naming the option.
Status CheckTlsOptions(const TlsOptions& options);

}  // namespace quarry::net
