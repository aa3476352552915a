// collMod's `index` option: hides or unhides one index, or sets its TTL lifetime.
#pragma once

#include <optional>

#include "base/status.h"
#include "bson/builder.h"
#include "bson/value.h"
#include "catalog/collection_info.h"

namespace quarry::commands {

struct IndexModification {
  bson::Document option;  // as given: {keyPattern | name, hidden?, expireAfterSeconds?}
  std::optional<bool> hidden;
  bool sets_expiry = false;
};

// Checks the option as mongod does: one of keyPattern and name, at least one change, and
// NotImplemented (238) for unique/prepareUnique conversions.
StatusWith<IndexModification> ParseIndexModification(bson::ValueView option);

// Applies `modification` to its index in `info` and appends mongod's reply fields (hidden_old,
// hidden_new, expireAfterSeconds_old, expireAfterSeconds_new) to `reply`. IndexNotFound (27)
// when no ready index matches; InvalidOptions (72) for hiding the _id index or giving a TTL to an
// index that cannot have one.
Status ApplyIndexModification(const IndexModification& modification, catalog::CollectionInfo* info,
                              bson::DocumentBuilder* reply);

}  // namespace quarry::commands
