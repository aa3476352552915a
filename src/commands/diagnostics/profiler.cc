// The profiler's levels and rings.
#include "commands/diagnostics/profiler.h"

namespace quarry::commands {

int Profiler::Level(std::string_view db) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = databases_.find(db);
  return it == databases_.end() ? 0 : it->second.level;
}

int Profiler::SetLevel(std::string_view db, int level) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = databases_.find(db);
  if (it == databases_.end()) {
    if (level == 0) return 0;
    it = databases_.emplace(std::string(db), Database{}).first;
  }
  const int previous = it->second.level;
  it->second.level = level;
  if (previous == 0 && level > 0) profiled_.fetch_add(1, std::memory_order_relaxed);
  if (previous > 0 && level == 0) profiled_.fetch_sub(1, std::memory_order_relaxed);
  return previous;
}

void Profiler::Record(std::string_view db, bson::Document entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = databases_.find(db);
  if (it == databases_.end()) it = databases_.emplace(std::string(db), Database{}).first;
  Database& database = it->second;
  database.bytes += entry.size();
  database.entries.push_back(std::move(entry));
  while (database.bytes > kProfileCollectionBytes && database.entries.size() > 1) {
    database.bytes -= database.entries.front().size();
    database.entries.pop_front();
  }
}

std::vector<bson::Document> Profiler::Entries(std::string_view db) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = databases_.find(db);
  if (it == databases_.end()) return {};
  return {it->second.entries.begin(), it->second.entries.end()};
}

void Profiler::Drop(std::string_view db) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = databases_.find(db);
  if (it == databases_.end()) return;
  if (it->second.level == 0) {
    databases_.erase(it);
    return;
  }
  it->second.entries.clear();
  it->second.bytes = 0;
}

bool Profiler::HasCollection(std::string_view db) const {
  std::lock_guard<std::mutex> lock(mu_);
  return databases_.find(db) != databases_.end();
}

Profiler& GlobalProfiler() {
  static Profiler* profiler = new Profiler();  // never destroyed: threads may record at exit
  return *profiler;
}

}  // namespace quarry::commands
