#include "main/config_file.h"

#include <algorithm>
#include <array>

namespace quarry::main {
namespace {

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

// Whether `longer` is a key inside the section `key` names.
bool Inside(std::string_view longer, std::string_view key) {
  return longer.size() > key.size() && longer.substr(0, key.size()) == key &&
         longer[key.size()] == '.';
}

}  // namespace

YAML::Node ConfigFile::Read(std::string_view key) {
  read_.emplace_back(key);
  YAML::Node node = root_;
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t dot = std::min(key.find('.', start), key.size());
    if (!node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    // Through a const node, so that a missing key is not added to the file's tree.
    const YAML::Node child =
        static_cast<const YAML::Node&>(node)[std::string(key.substr(start, dot - start))];
    if (!child.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    node.reset(child);  // not assignment, which would overwrite the node `node` refers to
    start = dot + 1;
  }
  return node;
}

bool ConfigFile::WasRead(std::string_view key) const {
  return std::any_of(read_.begin(), read_.end(),
                     [key](const std::string& read) { return read == key || Inside(key, read); });
}

bool ConfigFile::LeadsToKnownKey(std::string_view key) const {
  return std::any_of(read_.begin(), read_.end(),
                     [key](const std::string& read) { return Inside(read, key); }) ||
         std::any_of(kSettledKeys.begin(), kSettledKeys.end(),
                     [key](const SettledKey& settled) { return Inside(settled.key, key); });
}

Status ConfigFile::CheckSection(const YAML::Node& section, const std::string& prefix) const {
  auto refuse = [this](const std::string& key, std::string_view why) {
    return Status(ErrorCode::kBadValue,
                  key + " is not supported by quarryd" + std::string(why) + " (in " + path_ + ")");
  };
  for (const auto& entry : section) {
    const std::string key = prefix + entry.first.as<std::string>();
    if (WasRead(key)) continue;
    const auto settled = std::find_if(kSettledKeys.begin(), kSettledKeys.end(),
                                      [&key](const SettledKey& s) { return s.key == key; });
    if (settled != kSettledKeys.end()) {
      if (entry.second.IsScalar() && entry.second.Scalar() == settled->value) continue;
      return refuse(key, " except as " + std::string(settled->value));
    }
    if (LeadsToKnownKey(key)) {
      if (!entry.second.IsMap()) {
        return Status(ErrorCode::kBadValue,
                      "bad value in config file " + path_ + ": " + key + " must be a mapping");
      }
      QUARRY_RETURN_IF_ERROR(CheckSection(entry.second, key + "."));
      continue;
    }
    return refuse(key, "");
  }
  return Status::OK();
}

Status ConfigFile::CheckEveryKeyRead() const {
  if (root_.IsNull()) return Status::OK();  // an empty file
  if (!root_.IsMap()) {
    return Status(ErrorCode::kBadValue, "config file " + path_ + " must hold a YAML mapping");
  }
  return CheckSection(root_, "");
}

}  // namespace quarry::main
