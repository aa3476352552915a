// Options that change what a command returns and that Quarry does not implement yet. Each
// answers NotImplemented (238) naming the option, instead of being ignored: a client that asks
// for them must not get results computed without them.
#pragma once

#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::commands {

// find's returnKey together with a projection.
Status CheckFindKeyOptions(bool return_key, bson::DocumentView projection);

}  // namespace quarry::commands
