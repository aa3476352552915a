#include "main/config_keys.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace quarry::main {
namespace {

// The keys options.cc applies.
constexpr std::array<std::string_view, 20> kReadKeys = {
    "net.port",
    "net.bindIp",
    "net.http.port",
    "net.http.bindIp",
    "net.compression.compressors",
    "net.maxIncomingConnections",
    "net.tls.mode",
    "net.tls.certificateKeyFile",
    "net.tls.CAFile",
    "net.tls.allowConnectionsWithoutCertificates",
    "net.tls.disabledProtocols",
    "storage.dbPath",
    "storage.wiredTiger.engineConfig.cacheSizeGB",
    "replication.replSetName",
    "replication.oplogSizeMB",
    "security.authorization",
    "systemLog.path",
    "systemLog.quiet",
    "systemLog.logAppend",
    "setParameter",  // each parameter is checked by name when it is applied
};

// Keys of stock mongod.conf files whose value, when it is this one, is how quarryd behaves
// whatever the file says: it logs to a file only through systemLog.path, always journals, and
// never forks.
struct SettledKey {
  std::string_view key;
  std::string_view value;
};
constexpr std::array<SettledKey, 3> kSettledKeys = {{
    {"systemLog.destination", "file"},
    {"storage.journal.enabled", "true"},
    {"processManagement.fork", "false"},
}};

bool IsRead(std::string_view key) {
  return std::find(kReadKeys.begin(), kReadKeys.end(), key) != kReadKeys.end();
}

// Whether `longer` is a key inside the section `key` names.
bool Inside(std::string_view longer, std::string_view key) {
  return longer.size() > key.size() && longer.substr(0, key.size()) == key &&
         longer[key.size()] == '.';
}

// Whether the section `key` holds a key quarryd reads or accepts.
bool LeadsToKnownKey(std::string_view key) {
  return std::any_of(kReadKeys.begin(), kReadKeys.end(),
                     [key](std::string_view read) { return Inside(read, key); }) ||
         std::any_of(kSettledKeys.begin(), kSettledKeys.end(),
                     [key](const SettledKey& settled) { return Inside(settled.key, key); });
}

Status Refuse(const std::string& key, const std::string& path, std::string_view why) {
  return Status(ErrorCode::kBadValue,
                key + " is not supported by quarryd" + std::string(why) + " (in " + path + ")");
}

Status CheckSection(const YAML::Node& section, const std::string& prefix, const std::string& path) {
  for (const auto& entry : section) {
    const std::string key = prefix + entry.first.as<std::string>();
    if (IsRead(key)) continue;
    const auto settled = std::find_if(kSettledKeys.begin(), kSettledKeys.end(),
                                      [&key](const SettledKey& s) { return s.key == key; });
    if (settled != kSettledKeys.end()) {
      if (entry.second.IsScalar() && entry.second.Scalar() == settled->value) continue;
      return Refuse(key, path, " except as " + std::string(settled->value));
    }
    if (entry.second.IsMap() && LeadsToKnownKey(key)) {
      QUARRY_RETURN_IF_ERROR(CheckSection(entry.second, key + ".", path));
      continue;
    }
    return Refuse(key, path, "");
  }
  return Status::OK();
}

}  // namespace

Status CheckConfigKeys(const YAML::Node& root, const std::string& path) {
  if (root.IsNull()) return Status::OK();  // an empty file
  if (!root.IsMap()) {
    return Status(ErrorCode::kBadValue, "config file " + path + " must hold a YAML mapping");
  }
  return CheckSection(root, "", path);
}

}  // namespace quarry::main
