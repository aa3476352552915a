#include "commands/search/synonym_cache.h"

#include <set>
#include <utility>

#include "text/search_analyzer.h"

namespace quarry::commands {

SynonymCache::Read SynonymCache::Get(const std::string& db, const std::string& collection,
                                     storage::CollectionId id, const std::string& name,
                                     const text::SearchAnalyzer* analyzer,
                                     const std::function<Read()>& read) {
  if (text::SearchAnalyzer::Find(analyzer->name()) != analyzer) return read();
  auto key = std::make_tuple(db, collection, name, std::string(analyzer->name()));
  std::uint64_t writes = 0;
  {
    std::lock_guard lock(mu_);
    writes = WritesTo(id);
    auto found = kept_.find(key);
    if (found != kept_.end() && found->second.collection == id && found->second.writes == writes) {
      return found->second.read;
    }
  }
  // Read outside the lock; a write that commits meanwhile counts, so what is kept below is
  // read again by the next search.
  Read fresh = read();
  // Only an invalid mapping is the mapping's own state; an interrupted or failed read is not.
  if (!fresh.ok() && fresh.status().code() != ErrorCode::kBadValue) return fresh;
  std::lock_guard lock(mu_);
  if (kept_.size() >= kMaxKept) kept_.clear();
  kept_.insert_or_assign(std::move(key), Kept{id, writes, fresh});
  return fresh;
}

void SynonymCache::OnCommit(const storage::CommittedBatch& batch) {
  std::set<storage::CollectionId> touched;
  for (const storage::CommittedEntry& entry : batch.entries) {
    if (entry.collection != 0) touched.insert(entry.collection);
  }
  if (touched.empty()) return;
  std::lock_guard lock(mu_);
  for (const storage::CollectionId id : touched) ++writes_[id];
}

std::uint64_t SynonymCache::WritesTo(storage::CollectionId id) const {
  auto found = writes_.find(id);
  return found != writes_.end() ? found->second : 0;
}

}  // namespace quarry::commands
