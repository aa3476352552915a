// The synonym mappings read from their source collections, kept until a source changes: a
// search that names a mapping reads its collection once, not at every search. A commit to a
// collection (seen as a commit observer, before the writer is answered) makes the mappings read
// from it stale, as does the collection's drop or replacement; the next search reads it again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>

#include "base/status.h"
#include "storage/commit_pipeline.h"
#include "text/synonyms.h"

namespace quarry::commands {

class SynonymCache : public storage::CommitObserver {
 public:
  // What a read of one mapping gave: the map, or why it cannot serve queries.
  using Read = StatusWith<std::shared_ptr<const text::SynonymMap>>;

  // The mapping `name` of `analyzer` read from db.collection, whose id is now `collection`
  // (0: there is none): the kept one when that collection has not changed since, else what
  // `read` gives, kept for next time. Only mappings of the built-in analyzers are kept, as a
  // custom analyzer lives only as long as its index's definition.
  Read Get(const std::string& db, const std::string& collection, storage::CollectionId id,
           const std::string& name, const text::SearchAnalyzer* analyzer,
           const std::function<Read()>& read);

  void OnCommit(const storage::CommittedBatch& batch) override;

 private:
  // How many chunks have written to `id` so far.
  std::uint64_t WritesTo(storage::CollectionId id) const;

  struct Kept {
    storage::CollectionId collection;
    std::uint64_t writes;  // WritesTo(collection) before it was read
    Read read;
  };
  // A few mappings per deployment: beyond this many, the cache starts again.
  static constexpr std::size_t kMaxKept = 256;

  mutable std::mutex mu_;
  std::unordered_map<storage::CollectionId, std::uint64_t> writes_;  // guarded by mu_
  // (db, collection, mapping name, analyzer name) -> the mapping; guarded by mu_.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, Kept> kept_;
};

}  // namespace quarry::commands
