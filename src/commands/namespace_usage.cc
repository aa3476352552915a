#include "commands/namespace_usage.h"

#include <mutex>

namespace quarry::commands {

namespace {

NamespaceUsage::LatencyKind LatencyKindOf(NamespaceUsage::Section kind) {
  switch (kind) {
    case NamespaceUsage::kQueries:
    case NamespaceUsage::kGetMore:
      return NamespaceUsage::kReads;
    case NamespaceUsage::kInsert:
    case NamespaceUsage::kUpdate:
    case NamespaceUsage::kRemove:
      return NamespaceUsage::kWrites;
    default:
      return NamespaceUsage::kOtherCommands;
  }
}

}  // namespace

void NamespaceUsage::Counters::Add(bool writes, Section kind, std::int64_t micros,
                                   const Detail& detail) {
  for (Section section : {kTotal, writes ? kWriteLock : kReadLock, kind}) {
    this->micros[section].fetch_add(micros, std::memory_order_relaxed);
    count[section].fetch_add(1, std::memory_order_relaxed);
  }
  latency[detail.latency.value_or(LatencyKindOf(kind))].Add(micros);
  if (detail.collection_scan) {
    collection_scans.fetch_add(1, std::memory_order_relaxed);
    if (!detail.tailable) non_tailable_collection_scans.fetch_add(1, std::memory_order_relaxed);
  }
}

// Counters outlive Forget while a handle holds them: what a command adds to them just after its
// namespace was forgotten is lost, as if it had been counted just before.
void NamespaceUsage::Record(std::string_view ns, bool writes, Section kind,
                            std::chrono::microseconds elapsed, Handle* handle,
                            const Detail& detail) {
  const std::uint64_t generation = generation_.load(std::memory_order_acquire);
  if (handle != nullptr && handle->generation == generation && handle->ns == ns) {
    handle->counters->Add(writes, kind, elapsed.count(), detail);
    return;
  }
  std::shared_ptr<Counters> counters;
  {
    std::shared_lock lock(mu_);
    if (auto it = by_ns_.find(ns); it != by_ns_.end()) counters = it->second;
  }
  if (counters == nullptr) {
    std::unique_lock lock(mu_);
    auto [it, added] = by_ns_.try_emplace(std::string(ns));
    if (added) it->second = std::make_shared<Counters>();
    counters = it->second;
  }
  counters->Add(writes, kind, elapsed.count(), detail);
  if (handle != nullptr) *handle = Handle{std::string(ns), std::move(counters), generation};
}

void NamespaceUsage::Forget(std::string_view ns) {
  std::unique_lock lock(mu_);
  if (auto it = by_ns_.find(ns); it != by_ns_.end()) by_ns_.erase(it);
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

void NamespaceUsage::ForgetDatabase(std::string_view db) {
  std::unique_lock lock(mu_);
  std::erase_if(by_ns_, [db](const auto& entry) {
    return entry.first.size() > db.size() && entry.first.starts_with(db) &&
           entry.first[db.size()] == '.';
  });
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

std::vector<NamespaceUsage::Row> NamespaceUsage::Rows() const {
  std::shared_lock lock(mu_);
  std::vector<Row> rows;
  rows.reserve(by_ns_.size());
  for (const auto& [ns, counters] : by_ns_) {
    Row& row = rows.emplace_back();
    row.ns = ns;
    for (std::size_t i = 0; i < kSectionCount; ++i) {
      row.sections[i] = {counters->micros[i].load(std::memory_order_relaxed),
                         counters->count[i].load(std::memory_order_relaxed)};
    }
  }
  return rows;
}

NamespaceUsage::QueryFigures NamespaceUsage::Query(std::string_view ns) const {
  QueryFigures figures;
  std::shared_ptr<Counters> counters;
  {
    std::shared_lock lock(mu_);
    if (auto it = by_ns_.find(ns); it != by_ns_.end()) counters = it->second;
  }
  if (counters == nullptr) return figures;
  for (std::size_t i = 0; i < kLatencyKindCount; ++i)
    figures.latency[i] = counters->latency[i].Read();
  figures.collection_scans = counters->collection_scans.load(std::memory_order_relaxed);
  figures.non_tailable_collection_scans =
      counters->non_tailable_collection_scans.load(std::memory_order_relaxed);
  return figures;
}

}  // namespace quarry::commands
