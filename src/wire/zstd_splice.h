// A zstd reply that reuses a stored frame: when a reply's body holds one document that storage
// keeps compressed (bson::CompressedSpan), the OP_COMPRESSED payload is one zstd frame made of
// the few bytes around the document as raw blocks and the stored frame's compressed blocks,
// copied as they are. The server then neither compresses the document again nor needs more
// memory than the frame; every zstd decoder reads the result as one ordinary frame.
//
// Why only one span, with raw blocks around it: a compressed block may refer to the repeat
// offsets a frame starts with, so the stored blocks decode correctly only where the frame's
// state is still the initial one, which raw blocks before them keep and anything after them
// does not need.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "bson/value.h"

namespace quarry::wire {

// Up to this many bytes outside the span are sent as raw blocks; a reply with more is
// compressed the ordinary way.
inline constexpr std::size_t kSpliceMaxRawBytes = 64 * 1024;

// The OP_COMPRESSED (zstd) form of the message `head` + `body`, where `head` is the message
// header and the bytes before the body (OP_MSG's flags and section kind); nullopt when `body`
// has not exactly one compressed span, too many other bytes, or a span that is not a
// single-frame zstd encoding of its bytes.
std::optional<std::string> SpliceZstdMessage(std::string_view head, const bson::Document& body);

}  // namespace quarry::wire
