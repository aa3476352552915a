// The database profiler: each database's level (profile 0, 1 or 2) and its system.profile, the
// documents of the operations it profiled, newest last, in a ring of at most 1 MiB per database
// (mongod's default system.profile size). Kept in memory: a restart empties it.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::commands {

// mongod's default size of a system.profile collection.
inline constexpr std::size_t kProfileCollectionBytes = 1024 * 1024;

// Thread-safe.
class Profiler {
 public:
  // 0 (off), 1 (operations slower than slowms) or 2 (every operation).
  int Level(std::string_view db) const;
  // Whether any database is profiled: one relaxed load, so that the path of every command
  // takes no lock while profiling is off everywhere.
  bool AnyProfiled() const { return profiled_.load(std::memory_order_relaxed) > 0; }
  // Sets the level and returns the previous one.
  int SetLevel(std::string_view db, int level);

  // Appends `entry` to db's system.profile, dropping the oldest entries beyond its size.
  void Record(std::string_view db, bson::Document entry);
  // db's system.profile, oldest first.
  std::vector<bson::Document> Entries(std::string_view db) const;
  // Empties db's system.profile (dropDatabase), and forgets db unless it is being profiled.
  void Drop(std::string_view db);
  // Whether db has a system.profile to list (profiling was on, or entries remain).
  bool HasCollection(std::string_view db) const;

 private:
  struct Database {
    int level = 0;
    std::deque<bson::Document> entries;
    std::size_t bytes = 0;
  };
  mutable std::mutex mu_;
  std::map<std::string, Database, std::less<>> databases_;  // guarded by mu_
  std::atomic<int> profiled_{0};  // databases with a level above 0; written under mu_
};

// The server's one profiler, as the counters of other subsystems are one per process.
Profiler& GlobalProfiler();

}  // namespace quarry::commands
