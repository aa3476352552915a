// Options that change what a command returns and that Quarry does not implement yet. Each
// answers NotImplemented (238) naming the option, instead of being ignored: a client that asks
// for them must not get results computed without them.
#pragma once

#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::commands {

// `collation` of an index or a collection's default: OK when absent or the simple collation
// ({locale: "simple"}); a bad collation fails as mongod fails it; any other is NotImplemented.
Status CheckCollation(bson::ValueView collation, std::string_view where);

// find's returnKey together with a projection, and showRecordId (when true).
Status CheckFindKeyOptions(bool return_key, bson::DocumentView projection,
                           bson::ValueView show_record_id);

}  // namespace quarry::commands
