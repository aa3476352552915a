// Which keys of a mongod.conf-style YAML file quarryd reads. A key it does not read stops it
// with an error naming the key, rather than leaving a setting silently without effect.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "base/status.h"

namespace quarry::main {

// OK when every key of `root` (the file at `path`) is one quarryd reads (README's
// configuration table), or one of the few mongod.conf keys whose given value describes what
// quarryd does anyway (systemLog.destination: file, storage.journal.enabled: true,
// processManagement.fork: false). Otherwise BadValue naming the first other key.
Status CheckConfigKeys(const YAML::Node& root, const std::string& path);

}  // namespace quarry::main
