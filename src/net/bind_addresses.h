// Expanding mongod-style --bind_ip values into the addresses to listen on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace quarry::net {

// Splits each entry on commas, trims spaces, drops empty items and duplicates, and expands
// "localhost" to "127.0.0.1" and "::1" (so mongodb://localhost works whichever address a
// client's resolver returns first). Other names and literals are kept as given.
std::vector<std::string> ExpandBindAddresses(const std::vector<std::string>& entries);

// "host:port" for logs and wire::ConnectionInfo; IPv6 literals get brackets: "[::1]:27017".
std::string FormatHostPort(std::string_view host, unsigned port);

}  // namespace quarry::net
