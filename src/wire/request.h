// A client message decoded for the server: OP_MSG or OP_QUERY, after OP_COMPRESSED is unwrapped
// (MongoDB's OP_MSG and OP_COMPRESSED specifications). Parsing enforces every framing rule; the
// views it produces point only at validated BSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "wire/compression.h"
#include "wire/message_header.h"

namespace quarry::wire {

// OP_MSG flagBits.
inline constexpr std::uint32_t kChecksumPresent = 1u << 0;
inline constexpr std::uint32_t kMoreToCome = 1u << 1;
inline constexpr std::uint32_t kExhaustAllowed = 1u << 16;

// An OP_MSG kind-1 section: the documents of the body's array field `identifier`.
struct DocumentSequence {
  std::string_view identifier;
  std::vector<bson::DocumentView> documents;
};

// A decoded client message. Views point into the message the caller passed to ParseRequest
// (keep it alive while the Request is used) or, for a compressed message, into `decompressed`,
// which the Request owns (copies share those bytes).
struct Request {
  OpCode op_code = OpCode::kMsg;  // kMsg or kQuery (the wrapped opcode when compressed)
  std::int32_t request_id = 0;
  bool was_compressed = false;
  Compressor compressor = Compressor::kNoop;  // meaningful when was_compressed
  std::size_t physical_size = 0;              // bytes as received, header included
  std::size_t logical_size = 0;               // bytes after decompression, header included

  // OP_MSG. `body` is the kind-0 section; for OP_QUERY it is the query document, unwrapped
  // from {$query: {...}} when the client wrapped it.
  std::uint32_t flag_bits = 0;
  bson::DocumentView body;
  std::vector<DocumentSequence> sequences;

  // OP_QUERY.
  std::int32_t query_flags = 0;
  std::string_view full_collection_name;  // "<db>.$cmd" for commands
  std::int32_t number_to_skip = 0;
  std::int32_t number_to_return = 0;
  bool has_return_fields_selector = false;
  bson::DocumentView return_fields_selector;

  std::shared_ptr<const std::string> decompressed;  // owns the bytes when was_compressed
  // Levels of nesting of the message's deepest document (1: flat), as validation found them.
  int deepest_nesting = 0;

  bool more_to_come() const { return op_code == OpCode::kMsg && (flag_bits & kMoreToCome); }
  bool exhaust_allowed() const { return op_code == OpCode::kMsg && (flag_bits & kExhaustAllowed); }
  bool checksum_present() const { return flag_bits & kChecksumPresent; }

  // The command name: the body's first key ("" for an empty body).
  std::string_view command_name() const;
  // The database: OP_MSG's `$db` (empty if missing or not a string), or for OP_QUERY the part
  // of full_collection_name before its first '.'.
  std::string_view database() const;
  // The sequence with this identifier, or null.
  const DocumentSequence* FindSequence(std::string_view identifier) const;
};

// Decodes one whole message: `message` is exactly the bytes of one frame, header included.
// Fails with kProtocolError for framing errors (lengths that disagree, truncation, an opcode
// other than OP_MSG, OP_QUERY or OP_COMPRESSED, nested or bad compression), kInvalidBSON for
// a document that fails bson::Validate, kBSONObjectTooLarge for a document over
// kMaxInternalBsonObjectSize, kIllegalOpMsgFlag (223), kChecksumMismatch (288),
// kTooManyDocumentSequences (233), and the Location codes 40430 (two bodies), 40431 (repeated
// sequence identifier), 40432 (unknown section kind), 40433 (a field both in the body and as
// a sequence), 40587 (no body). Codes in the kCloseConnection category mean the stream can no
// longer be trusted; the others leave `*request` filled up to the failed section (op_code,
// request_id, compression, flag_bits), so the caller can answer with an error reply (and
// must not answer a moreToCome message).
Status ParseRequest(std::string_view message, CompressionContext& codec, Request* request);

// The same, returning the request. For tests and callers that do not answer parse errors.
StatusWith<Request> ParseRequest(std::string_view message, CompressionContext& codec);

}  // namespace quarry::wire
