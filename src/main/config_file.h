// A mongod.conf-style YAML file, read key by key: every key quarryd reads is remembered, so that
// a key nothing read stops it with an error naming the key, rather than leaving a setting
// silently without effect.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace quarry::main {

class ConfigFile {
 public:
  ConfigFile(YAML::Node root, std::string path) : root_(std::move(root)), path_(std::move(path)) {}

  // The value at the dotted `key` ("net.tls.mode"), undefined when the file has none; the key
  // (and everything under it) counts as read either way.
  YAML::Node Read(std::string_view key);

  // OK when every key of the file was read, or is one of the few mongod.conf keys whose given
  // value describes what quarryd does anyway (systemLog.destination: file,
  // storage.journal.enabled: true, processManagement.fork: false). Otherwise BadValue naming the
  // first other key: a section none of whose keys was read is named whole.
  Status CheckEveryKeyRead() const;

 private:
  Status CheckSection(const YAML::Node& section, const std::string& prefix) const;
  bool WasRead(std::string_view key) const;
  bool LeadsToKnownKey(std::string_view key) const;

  YAML::Node root_;
  std::string path_;
  std::vector<std::string> read_;
};

}  // namespace quarry::main
