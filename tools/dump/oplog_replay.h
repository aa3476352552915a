// Replays the oplog of a point-in-time dump (restore --oplogReplay) after its collections are
// restored: inserts and replacements as upserts by _id, modifier updates as updates, deletes, so
// the collections end as they were when the dump ended. Entries of namespaces the restore leaves
// out are skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "base/status.h"
#include "tools/client/mongo_client.h"

namespace quarry::tools::dumping {

class OplogReplayer {
 public:
  OplogReplayer(client::MongoClient* client, std::function<bool(const std::string& ns)> included)
      : client_(client), included_(std::move(included)) {}

  // Applies one entry. Errors name the entry's namespace: a form this replay does not apply
  // (commands, "$v": 2 update diffs), or the server's refusal.
  Status Apply(const bson_t& entry);
  std::int64_t applied() const { return applied_; }

 private:
  client::MongoClient* client_;
  std::function<bool(const std::string&)> included_;
  std::map<std::string, client::CollectionPtr> collections_;
  std::int64_t applied_ = 0;
};

}  // namespace quarry::tools::dumping
