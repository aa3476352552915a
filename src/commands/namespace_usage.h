// The top command's figures: for each collection, the time and number of the commands that
// named it, split as mongod's Top splits them (read or write lock, and the kind of operation),
// with the latency histograms and collection-scan counts $collStats reports. Dispatch records
// each command once it ran; `top` and $collStats read them.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "commands/latency_histogram.h"

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

  // mongod's latency classes: reads (find, getMore, aggregate, count, distinct), writes
  // (insert, update, delete, findAndModify), and every other command.
  enum LatencyKind : std::uint8_t { kReads, kWrites, kOtherCommands, kLatencyKindCount };
  // What a command did beyond its time: its latency class (by default its section's), and
  // whether its plan scanned the collection (a tailable find's scan counted apart).
  struct Detail {
    std::optional<LatencyKind> latency;
    bool collection_scan = false;
    bool tailable = false;
  };
  // $collStats' latencyStats and queryExecStats of one namespace.
  struct QueryFigures {
    std::array<LatencyHistogram::Figures, kLatencyKindCount> latency;
    std::int64_t collection_scans = 0;
    std::int64_t non_tailable_collection_scans = 0;
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
              Handle* handle, const Detail& detail);
  // The same with no detail: the latency class of `kind`, no scan.
  void Record(std::string_view ns, bool writes, Section kind, std::chrono::microseconds elapsed,
              Handle* handle = nullptr) {
    Record(ns, writes, kind, elapsed, handle, Detail());
  }
  // Forgets `ns` (its collection was dropped), or every namespace of `db` (dropped), as mongod's
  // top does.
  void Forget(std::string_view ns);
  void ForgetDatabase(std::string_view db);
  // Every namespace's figures, by name.
  std::vector<Row> Rows() const;
  // One namespace's latencies and scans (all zero for one not counted since it was created).
  QueryFigures Query(std::string_view ns) const;

  struct Counters {
    std::array<std::atomic<std::int64_t>, kSectionCount> micros{};
    std::array<std::atomic<std::int64_t>, kSectionCount> count{};
    std::array<LatencyHistogram, kLatencyKindCount> latency;
    std::atomic<std::int64_t> collection_scans{0};
    std::atomic<std::int64_t> non_tailable_collection_scans{0};
    void Add(bool writes, Section kind, std::int64_t micros, const Detail& detail);
  };

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<Counters>, std::less<>> by_ns_;
  // Advanced by each Forget: handles taken before it look their namespace up again.
  std::atomic<std::uint64_t> generation_{1};
};

}  // namespace quarry::commands
