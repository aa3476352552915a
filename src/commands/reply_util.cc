#include "commands/reply_util.h"

#include <chrono>

namespace quarry::commands {

std::int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace quarry::commands
