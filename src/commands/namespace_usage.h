// The top command's figures: for each collection, the time and number of the commands that
// named it, split as mongod's Top splits them (read or write lock, and the kind of operation).
// Dispatch records each command once it ran; `top` reads them.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::commands {

class NamespaceUsage {
 public:
  // mongod's top sections, in its order.
  enum Section : std::uint8_t {
    kTotal,
    kReadLock,
    kWriteLock,
    kQueries,
    kGetMore,
    kInsert,
    kUpdate,
    kRemove,
    kCommands,
    kSectionCount
  };
  static constexpr std::array<std::string_view, kSectionCount> kSectionNames = {
      "total",  "readLock", "writeLock", "queries", "getmore",
      "insert", "update",   "remove",    "commands"};

  struct Figure {
    std::int64_t micros = 0;
    std::int64_t count = 0;
  };
  struct Row {
    std::string ns;
    std::array<Figure, kSectionCount> sections;
  };

  struct Counters;
  // A connection's last namespace and its counters: its next command on that namespace counts
  // there without a lookup, unless a namespace was forgotten since.
  struct Handle {
    std::string ns;
    std::shared_ptr<Counters> counters;
    std::uint64_t generation = 0;
  };

  // Counts one command on `ns` ("db.coll") under total, its lock (`writes`: writeLock, else
  // readLock) and `kind` (one of kQueries ... kCommands), through `handle` (one per connection,
  // or null). Thread-safe.
  void Record(std::string_view ns, bool writes, Section kind, std::chrono::microseconds elapsed,
              Handle* handle = nullptr);
  // Forgets `ns` (its collection was dropped), or every namespace of `db` (dropped), as mongod's
  // top does.
  void Forget(std::string_view ns);
  void ForgetDatabase(std::string_view db);
  // Every namespace's figures, by name.
  std::vector<Row> Rows() const;

  struct Counters {
    std::array<std::atomic<std::int64_t>, kSectionCount> micros{};
    std::array<std::atomic<std::int64_t>, kSectionCount> count{};
    void Add(bool writes, Section kind, std::int64_t micros);
  };

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<Counters>, std::less<>> by_ns_;
  // Advanced by each Forget: handles taken before it look their namespace up again.
  std::atomic<std::uint64_t> generation_{1};
};

}  // namespace quarry::commands
