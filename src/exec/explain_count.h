// How explain writes a count: as an int when it fits, else a long, as mongod's appendNumber
// does, so shells print `nReturned: 5`, not `Long('5')`.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "bson/builder.h"

namespace quarry::exec {

inline void AppendCount(bson::DocumentBuilder* b, std::string_view field, std::int64_t value) {
  if (value >= std::numeric_limits<std::int32_t>::min() &&
      value <= std::numeric_limits<std::int32_t>::max()) {
    b->AppendInt32(field, static_cast<std::int32_t>(value));
  } else {
    b->AppendInt64(field, value);
  }
}

}  // namespace quarry::exec
