// Reading the meta family: the format version, counters and other small named values. Writes go
// through WriteUnit::PutMeta so they commit with the changes they count.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace quarry::storage {

namespace internal {
struct EngineState;
}  // namespace internal

// The names of sessions' records (server/sessions): this prefix, the lsid's 16-byte id, then
// what the record is. Storage reads no such record; it keeps one memtable insert hint per
// session (engine.cc).
inline constexpr std::string_view kSessionNamePrefix = "session/";
inline constexpr std::size_t kSessionIdBytes = 16;

// Names under "stats/" and "format_version" belong to storage itself.
class MetaStore {
 public:
  explicit MetaStore(internal::EngineState* state) : state_(state) {}

  StatusWith<std::optional<std::string>> Get(std::string_view name) const;
  // Every (name, value) whose name starts with `prefix`, in name order.
  StatusWith<std::vector<std::pair<std::string, std::string>>> List(std::string_view prefix) const;

 private:
  internal::EngineState* state_;
};

}  // namespace quarry::storage
