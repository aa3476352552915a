// OP_MSG parsing: flagBits, the optional CRC-32C, and the sections, with mongod's rules and codes
// (src/mongo/rpc/op_msg.cpp).
#include <cstdio>

#include "base/crc32c.h"
#include "base/endian.h"
#include "wire/request_internal.h"

namespace quarry::wire::internal {
namespace {

// Bits 0-15 are "required": a receiver that does not know one must fail. We know these two.
constexpr std::uint32_t kRequiredFlagsMask = 0xFFFF;
constexpr std::uint32_t kKnownRequiredFlags = kChecksumPresent | kMoreToCome;
// A kind-1 section's size counts itself (4 bytes) and at least the identifier's NUL.
constexpr std::int32_t kMinSequenceSize = 5;
// mongod accepts a body plus at most two sequences (e.g. update's `updates` and bulkWrite's
// `ops` + `nsInfo`).
constexpr std::size_t kMaxSequences = 2;

std::string Hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%x", v);
  return buf;
}

Status VerifyAndStripChecksum(std::string_view message, std::string_view* rest) {
  if (rest->size() < 4) {
    return Status(ErrorCode::kProtocolError, "OP_MSG has checksumPresent but no room for one");
  }
  const std::uint32_t stored = LoadLittleEndian32(message.data() + message.size() - 4);
  const std::uint32_t computed = Crc32c(message.substr(0, message.size() - 4));
  if (stored != computed) {
    return Status(
        ErrorCode::kChecksumMismatch,
        "OP_MSG checksum " + Hex(stored) + " does not match its contents (" + Hex(computed) + ")");
  }
  rest->remove_suffix(4);
  return Status::OK();
}

Status ParseSequence(std::string_view* rest, Request* request) {
  if (rest->size() < 4) {
    return Status(ErrorCode::kProtocolError, "OP_MSG document sequence is truncated");
  }
  const std::int32_t size = LoadLittleEndianInt32(rest->data());
  if (size < kMinSequenceSize || static_cast<std::size_t>(size) > rest->size()) {
    return Status(ErrorCode::kProtocolError,
                  "OP_MSG document sequence size " + std::to_string(size) + " does not fit the " +
                      std::to_string(rest->size()) + " bytes that remain in the message");
  }
  std::string_view section = rest->substr(4, static_cast<std::size_t>(size) - 4);
  rest->remove_prefix(static_cast<std::size_t>(size));

  const std::size_t nul = section.find('\0');
  if (nul == std::string_view::npos) {
    return Status(ErrorCode::kProtocolError,
                  "OP_MSG document sequence identifier is not NUL-terminated within the section");
  }
  DocumentSequence sequence;
  sequence.identifier = section.substr(0, nul);
  section.remove_prefix(nul + 1);
  if (request->FindSequence(sequence.identifier) != nullptr) {
    return Status(ErrorCode::kLocation40431,
                  "Duplicate document sequence: " + std::string(sequence.identifier));
  }
  if (request->sequences.size() == kMaxSequences) {
    return Status(ErrorCode::kTooManyDocumentSequences,
                  "OP_MSG has more than " + std::to_string(kMaxSequences) + " document sequences");
  }
  const std::string what = "OP_MSG document sequence '" + std::string(sequence.identifier) + "'";
  while (!section.empty()) {
    bson::DocumentView doc;
    QUARRY_RETURN_IF_ERROR(ReadDocument(what, &section, &doc, &request->deepest_nesting));
    sequence.documents.push_back(doc);
  }
  request->sequences.push_back(std::move(sequence));
  return Status::OK();
}

}  // namespace

Status ParseOpMsg(std::string_view message, Request* request) {
  std::string_view rest = message.substr(kHeaderSize);
  if (rest.size() < 4) {
    return Status(ErrorCode::kProtocolError, "OP_MSG is too short for its flagBits");
  }
  request->flag_bits = LoadLittleEndian32(rest.data());
  rest.remove_prefix(4);
  const std::uint32_t unknown = request->flag_bits & kRequiredFlagsMask & ~kKnownRequiredFlags;
  if (unknown != 0) {
    return Status(ErrorCode::kIllegalOpMsgFlag,
                  "Unrecognized required flags in OP_MSG: " + Hex(unknown));
  }
  if (request->flag_bits & kChecksumPresent) {
    QUARRY_RETURN_IF_ERROR(VerifyAndStripChecksum(message, &rest));
  }

  bool have_body = false;
  while (!rest.empty()) {
    const auto kind = static_cast<std::uint8_t>(rest.front());
    rest.remove_prefix(1);
    switch (kind) {
      case 0:
        if (have_body) {
          return Status(ErrorCode::kLocation40430, "Multiple body sections in message");
        }
        QUARRY_RETURN_IF_ERROR(
            ReadDocument("OP_MSG body", &rest, &request->body, &request->deepest_nesting));
        have_body = true;
        break;
      case 1:
        QUARRY_RETURN_IF_ERROR(ParseSequence(&rest, request));
        break;
      default:
        return Status(ErrorCode::kLocation40432,
                      "Unknown section kind " + std::to_string(kind) + " in OP_MSG");
    }
  }
  if (!have_body) {
    return Status(ErrorCode::kLocation40587, "OP_MSG messages must have a body");
  }
  for (const DocumentSequence& sequence : request->sequences) {
    if (request->body.Has(sequence.identifier)) {
      return Status(ErrorCode::kLocation40433,
                    "Duplicate field between command body and document sequence: '" +
                        std::string(sequence.identifier) + "'");
    }
  }
  return Status::OK();
}

}  // namespace quarry::wire::internal
