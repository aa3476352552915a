// Bind address lists: pure string handling, kept out of server.cc so it is testable alone.
#include "net/bind_addresses.h"

#include <algorithm>

namespace quarry::net {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void AddUnique(std::string address, std::vector<std::string>* out) {
  if (std::find(out->begin(), out->end(), address) == out->end()) {
    out->push_back(std::move(address));
  }
}

}  // namespace

std::vector<std::string> ExpandBindAddresses(const std::vector<std::string>& entries) {
  std::vector<std::string> out;
  for (const std::string& entry : entries) {
    std::string_view rest = entry;
    while (true) {
      const std::size_t comma = rest.find(',');
      std::string_view item = Trim(rest.substr(0, comma));
      if (item == "localhost") {
        AddUnique("127.0.0.1", &out);
        AddUnique("::1", &out);
      } else if (!item.empty()) {
        AddUnique(std::string(item), &out);
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return out;
}

std::string FormatHostPort(std::string_view host, unsigned port) {
  std::string out;
  if (host.find(':') != std::string_view::npos) {
    out = "[" + std::string(host) + "]";
  } else {
    out = std::string(host);
  }
  return out + ":" + std::to_string(port);
}

}  // namespace quarry::net
