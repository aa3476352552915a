// Size limits of the wire protocol, as mongod advertises them in `hello` (maxMessageSizeBytes,
// maxBsonObjectSize, maxWriteBatchSize).
#pragma once

#include <cstddef>

namespace quarry::wire {

// Largest message (header included) a client may send or receive. Decimal, as in mongod.
inline constexpr std::size_t kMaxMessageSizeBytes = 48000000;

// Largest user document.
inline constexpr std::size_t kMaxBsonObjectSize = 16 * 1024 * 1024;

// Largest command or reply document: a command may exceed kMaxBsonObjectSize by its envelope
// (mongod's BSONObjMaxInternalSize).
inline constexpr std::size_t kMaxInternalBsonObjectSize = kMaxBsonObjectSize + 16 * 1024;

// Most statements in one insert, update or delete command.
inline constexpr std::size_t kMaxWriteBatchSize = 100000;

}  // namespace quarry::wire
