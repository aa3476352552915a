// What a dump keeps of a collection besides its documents, in mongodump's metadata JSON
// (<collection>.metadata.json, and the archive prelude): options, index specifications, UUID,
// name and type, as canonical Extended JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"

namespace quarry::tools::dumping {

// admin.system.users and admin.system.roles: dumped with the admin database, as mongodump does,
// and restored by merging into the target's users and roles (CollectionWriter).
bool IsAuthorizationCollection(std::string_view db, std::string_view collection);

struct CollectionMetadata {
  std::string name;
  std::string type = "collection";  // or "view", "timeseries"
  std::string uuid;                 // 32 lowercase hex digits, or empty
  client::BsonPtr options{bson_new()};
  std::vector<client::BsonPtr> indexes;
};

std::string MetadataJson(const CollectionMetadata& metadata);

// Errors (kFailedToParse) for text that is not such JSON; `name` is used when the JSON names
// no collection (older dumps).
StatusWith<CollectionMetadata> ParseMetadataJson(std::string_view json, const std::string& name);

// The index specification to send to createIndexes: the dumped one without the fields a server
// fills in itself ("v", "ns").
client::BsonPtr IndexSpecForCreate(const bson_t& dumped);

// True for mongorestore's namespace patterns: "db.collection" with '*' matching any run of
// characters (so "db.*" is every collection of db).
bool NamespaceMatches(std::string_view pattern, std::string_view ns);

}  // namespace quarry::tools::dumping
