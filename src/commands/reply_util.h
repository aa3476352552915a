// Small helpers that several command families share when building replies.
#pragma once

#include <cstdint>

namespace quarry::commands {

std::int64_t NowMillis();

}  // namespace quarry::commands
