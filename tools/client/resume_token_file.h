// A resume token file (`quarry watch`, `quarry copy --follow`): where a change stream follower
// keeps the resume token of the last event it printed, so that a restarted watcher continues
// exactly after it. The file holds the token as one line of canonical Extended JSON (readable, and
// exact for any BSON type a server may put in a token).
#pragma once

#include <optional>
#include <string>

#include "tools/client/mongo_client.h"

namespace quarry::tools::client {

// The token saved at `path`, or nullopt when no file exists there yet (a first run). Fails
// with kBadValue when the file cannot be read or does not hold one JSON document.
StatusWith<std::optional<BsonPtr>> ReadResumeToken(const std::string& path);

// Replaces the file at `path` with `token` atomically: the token is written to a temporary
// file next to it and renamed over it, so a watcher killed at any moment leaves either the old
// token or the new one, never a torn file. Fails with kOperationFailed on an I/O error.
Status WriteResumeToken(const std::string& path, const bson_t& token);

}  // namespace quarry::tools::client
