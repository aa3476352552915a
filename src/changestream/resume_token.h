// Change-stream resume tokens: {_data: "<upper-case hex>"} documents that name a position in the
// oplog. Drivers treat them as opaque and echo them back; tools decode the first 9 bytes (0x82 and
// the big-endian Timestamp), so that prefix follows MongoDB's layout.
//
// _data layout (bytes, then hex-encoded):
//   0x82 | ts (8, big-endian) | version (1) | kind (1: 0x00 high-water mark, 0x80 event)
//   events only: txnOpIndex (4, big-endian) | fromInvalidate (1) | has UUID (1) [| UUID (16)]
//                | event hash (8, big-endian)
// Byte order equals stream order, so comparing two `_data` strings compares positions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "storage/types.h"

namespace quarry::changestream {

inline constexpr std::uint8_t kResumeTokenVersion = 1;

struct ResumeToken {
  enum class Kind : std::uint8_t { kHighWaterMark = 0x00, kEvent = 0x80 };

  // For an event: the oplog entry's timestamp (its clusterTime). For a high-water mark: the
  // first timestamp not yet examined, so every event at or after `ts` is after the token.
  storage::Timestamp ts = 0;
  Kind kind = Kind::kHighWaterMark;
  std::uint32_t txn_op_index = 0;  // position inside a transaction; 0 otherwise
  bool from_invalidate = false;    // the invalidate event that follows the event at `ts`
  std::string uuid;                // the collection's UUID (16 raw bytes), or empty
  std::uint64_t event_hash = 0;    // identifies the entry (document key / DDL command)

  static ResumeToken HighWaterMark(storage::Timestamp ts);
  bool is_event() const { return kind == Kind::kEvent; }

  // The `_data` hex string, upper case.
  std::string ToHex() const;
  // {_data: "<hex>"}
  bson::Document ToDocument() const;
};

// Parses a resume token document ({_data: <hex string>}, optionally with _typeBits). Fails with
// InvalidResumeToken (260) for anything this server did not produce.
StatusWith<ResumeToken> ParseResumeToken(bson::ValueView token);
StatusWith<ResumeToken> ParseResumeTokenHex(std::string_view hex);

// <0, 0, >0 as `a` is before, at or after `b` in stream order (ts, kind, txnOpIndex,
// fromInvalidate). The UUID and hash do not order events: they identify them.
int CompareResumeTokens(const ResumeToken& a, const ResumeToken& b);

}  // namespace quarry::changestream
