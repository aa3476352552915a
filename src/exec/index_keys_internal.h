// The btree key generator behind IndexDescriptor::KeysOf. Folder-private.
#pragma once

#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "exec/index_descriptor.h"

namespace quarry::exec {

// What GenerateIndexKeys builds: the multikey flag always; the keys unless only the flag is
// wanted; their values too when asked for.
enum class KeyOutput { kMultikeyOnly, kKeys, kKeysWithValues };

// The keys of `doc` in `index` (KeysOf's rules), before the partial filter: the caller applies it.
StatusWith<DocumentKeys> GenerateIndexKeys(const IndexDescriptor& index, bson::DocumentView doc,
                                           KeyOutput output);

// Sorts `keys` by encoding and drops repeats: of keys that encode alike (1 and 1.0), the first
// generated stays, as in mongod's key set.
void SortAndDedupKeys(std::vector<IndexKey>* keys);

}  // namespace quarry::exec
