#include "net/tls_options.h"

#include <unistd.h>

#include <string>

namespace quarry::net {

StatusWith<TlsMode> ParseTlsMode(std::string_view name) {
  if (name == "disabled") return TlsMode::kDisabled;
  if (name == "allowTLS") return TlsMode::kAllowTls;
  if (name == "preferTLS") return TlsMode::kPreferTls;
  if (name == "requireTLS") return TlsMode::kRequireTls;
  return Status(ErrorCode::kBadValue,
                "unknown TLS mode '" + std::string(name) +
                    "' (choose from disabled, allowTLS, preferTLS, requireTLS)");
}

std::string_view TlsModeName(TlsMode mode) {
  switch (mode) {
    case TlsMode::kDisabled:
      return "disabled";
    case TlsMode::kAllowTls:
      return "allowTLS";
    case TlsMode::kPreferTls:
      return "preferTLS";
    case TlsMode::kRequireTls:
      return "requireTLS";
  }
  return "disabled";
}

StatusWith<TlsProtocols> ParseTlsDisabledProtocols(std::string_view list) {
  TlsProtocols out;
  if (list == "none") return out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string_view name = list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (name == "TLS1_0") {
      out.tls1_0 = true;
    } else if (name == "TLS1_1") {
      out.tls1_1 = true;
    } else if (name == "TLS1_2") {
      out.tls1_2 = true;
    } else if (name == "TLS1_3") {
      out.tls1_3 = true;
    } else {
      return Status(ErrorCode::kBadValue,
                    "unknown TLS protocol '" + std::string(name) +
                        "' in tlsDisabledProtocols (choose from TLS1_0, TLS1_1, TLS1_2, TLS1_3, "
                        "or none)");
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.tls1_0 && out.tls1_1 && out.tls1_2 && out.tls1_3) {
    return Status(ErrorCode::kBadValue, "tlsDisabledProtocols disables every TLS version");
  }
  return out;
}

Status CheckTlsOptions(const TlsOptions& options) {
  if (options.mode == TlsMode::kDisabled) {
    if (!options.certificate_key_file.empty() || !options.ca_file.empty()) {
      return Status(ErrorCode::kBadValue,
                    "tlsCertificateKeyFile and tlsCAFile need a tlsMode other than disabled");
    }
    return Status::OK();
  }
  if (options.certificate_key_file.empty()) {
    return Status(ErrorCode::kBadValue,
                  "tlsMode " + std::string(TlsModeName(options.mode)) +
                      " needs tlsCertificateKeyFile (the server's certificate and key, PEM)");
  }
  for (const std::string* path : {&options.certificate_key_file, &options.ca_file}) {
    if (!path->empty() && ::access(path->c_str(), R_OK) != 0) {
      return Status(ErrorCode::kBadValue, "cannot read TLS file " + *path);
    }
  }
  return Status::OK();
}

}  // namespace quarry::net
