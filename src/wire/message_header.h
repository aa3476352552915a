// The 16-byte header that starts every wire message, and the opcodes it names (MongoDB's Wire
// Protocol documentation, "Standard Message Header").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::wire {

inline constexpr std::size_t kHeaderSize = 16;

// Every opcode MongoDB has defined. Only kQuery, kMsg and kCompressed are accepted from clients;
// the legacy ones are listed so that errors can name them.
enum class OpCode : std::int32_t {
  kReply = 1,
  kUpdate = 2001,
  kInsert = 2002,
  kReserved = 2003,
  kQuery = 2004,
  kGetMore = 2005,
  kDelete = 2006,
  kKillCursors = 2007,
  kCompressed = 2012,
  kMsg = 2013,
};

// "OP_MSG", "OP_INSERT", ...; "unknown" for a number that is no opcode.
std::string_view OpCodeName(std::int32_t op_code);

struct MessageHeader {
  std::int32_t message_length = 0;  // whole message, header included
  std::int32_t request_id = 0;
  std::int32_t response_to = 0;
  std::int32_t op_code = 0;  // kept as a number: a client may send any value
};

// Decodes the header in the first kHeaderSize bytes at `data` (little-endian).
MessageHeader ReadHeader(const char* data);

// Appends the 16 header bytes to `*out`.
void AppendHeader(const MessageHeader& header, std::string* out);

// Checks the length a client announced before anything else is read: it must cover at least
// the header and at most kMaxMessageSizeBytes. Fails with kProtocolError (the caller closes the
// connection: nothing after a bad length can be framed).
Status CheckMessageLength(std::int32_t message_length);

}  // namespace quarry::wire
