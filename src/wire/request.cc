// ParseRequest: header checks, OP_COMPRESSED unwrapping, dispatch to the OP_MSG and OP_QUERY
// parsers; and the Request accessors.
#include "wire/request.h"

#include <algorithm>

#include "base/endian.h"
#include "bson/validate.h"
#include "wire/limits.h"
#include "wire/request_internal.h"

namespace quarry::wire {
namespace {

// OP_COMPRESSED body before the payload: originalOpcode, uncompressedSize, compressorId.
constexpr std::size_t kCompressedPrefixSize = 9;

Status UnsupportedOpCode(std::int32_t op_code) {
  return Status(ErrorCode::kProtocolError, "unsupported opcode " + std::to_string(op_code) + " (" +
                                               std::string(OpCodeName(op_code)) +
                                               "); only OP_MSG, OP_QUERY and OP_COMPRESSED are "
                                               "accepted");
}

Status ParseUncompressed(std::string_view message, Request* request) {
  if (request->op_code == OpCode::kMsg) return internal::ParseOpMsg(message, request);
  return internal::ParseOpQuery(message, request);
}

Status ParseCompressed(std::string_view message, const MessageHeader& header,
                       CompressionContext& codec, Request* request) {
  std::string_view rest = message.substr(kHeaderSize);
  if (rest.size() < kCompressedPrefixSize) {
    return Status(ErrorCode::kProtocolError, "OP_COMPRESSED message is too short for its fields");
  }
  const std::int32_t original_op = LoadLittleEndianInt32(rest.data());
  const std::int32_t uncompressed_size = LoadLittleEndianInt32(rest.data() + 4);
  const auto compressor_id = static_cast<std::uint8_t>(rest[8]);
  rest.remove_prefix(kCompressedPrefixSize);

  if (original_op != static_cast<std::int32_t>(OpCode::kMsg) &&
      original_op != static_cast<std::int32_t>(OpCode::kQuery)) {
    return Status(ErrorCode::kProtocolError, "OP_COMPRESSED wraps opcode " +
                                                 std::to_string(original_op) + " (" +
                                                 std::string(OpCodeName(original_op)) +
                                                 "); only OP_MSG and OP_QUERY are "
                                                 "accepted");
  }
  request->op_code = static_cast<OpCode>(original_op);
  if (uncompressed_size < 0 ||
      static_cast<std::size_t>(uncompressed_size) + kHeaderSize > kMaxMessageSizeBytes) {
    return Status(ErrorCode::kProtocolError,
                  "OP_COMPRESSED uncompressedSize " + std::to_string(uncompressed_size) +
                      " is outside [0, " + std::to_string(kMaxMessageSizeBytes - kHeaderSize) +
                      "]");
  }
  std::optional<Compressor> compressor = CompressorFromId(compressor_id);
  if (!compressor) {
    return Status(ErrorCode::kProtocolError,
                  "OP_COMPRESSED uses unknown compressor id " + std::to_string(compressor_id));
  }
  request->was_compressed = true;
  request->compressor = *compressor;

  // Rebuild the wrapped message with its own header, so the inner parsers (and an OP_MSG
  // checksum, which covers the uncompressed message) see exactly what the client compressed.
  auto inner = std::make_shared<std::string>();
  inner->reserve(kHeaderSize + static_cast<std::size_t>(uncompressed_size));
  MessageHeader inner_header = header;
  inner_header.message_length = static_cast<std::int32_t>(kHeaderSize) + uncompressed_size;
  inner_header.op_code = original_op;
  AppendHeader(inner_header, inner.get());
  QUARRY_RETURN_IF_ERROR(codec.Decompress(
      *compressor, rest, static_cast<std::size_t>(uncompressed_size), inner.get()));
  request->logical_size = inner->size();
  request->decompressed = inner;
  return ParseUncompressed(*inner, request);
}

}  // namespace

std::string_view Request::command_name() const { return body.FirstKey(); }

std::string_view Request::database() const {
  if (op_code == OpCode::kQuery) {
    return full_collection_name.substr(0, full_collection_name.find('.'));
  }
  bson::ValueView db = body.Get("$db");
  return db.type() == bson::Type::kString ? db.String() : std::string_view();
}

const DocumentSequence* Request::FindSequence(std::string_view identifier) const {
  for (const DocumentSequence& sequence : sequences) {
    if (sequence.identifier == identifier) return &sequence;
  }
  return nullptr;
}

Status ParseRequest(std::string_view message, CompressionContext& codec, Request* request) {
  *request = Request();
  request->physical_size = message.size();
  request->logical_size = message.size();
  if (message.size() < kHeaderSize) {
    return Status(ErrorCode::kProtocolError, "message of " + std::to_string(message.size()) +
                                                 " bytes is shorter than the 16-byte header");
  }
  const MessageHeader header = ReadHeader(message.data());
  request->request_id = header.request_id;
  QUARRY_RETURN_IF_ERROR(CheckMessageLength(header.message_length));
  if (static_cast<std::size_t>(header.message_length) != message.size()) {
    return Status(ErrorCode::kProtocolError,
                  "messageLength " + std::to_string(header.message_length) +
                      " does not match the " + std::to_string(message.size()) +
                      " bytes of the message");
  }
  switch (static_cast<OpCode>(header.op_code)) {
    case OpCode::kMsg:
    case OpCode::kQuery:
      request->op_code = static_cast<OpCode>(header.op_code);
      return ParseUncompressed(message, request);
    case OpCode::kCompressed:
      return ParseCompressed(message, header, codec, request);
    default:
      return UnsupportedOpCode(header.op_code);
  }
}

StatusWith<Request> ParseRequest(std::string_view message, CompressionContext& codec) {
  Request request;
  QUARRY_RETURN_IF_ERROR(ParseRequest(message, codec, &request));
  return request;
}

namespace internal {

Status ReadDocument(std::string_view what, std::string_view* rest, bson::DocumentView* doc,
                    int* deepest) {
  if (rest->size() >= 4) {
    const std::int32_t declared = LoadLittleEndianInt32(rest->data());
    if (declared > 0 && static_cast<std::size_t>(declared) > kMaxInternalBsonObjectSize) {
      return Status(ErrorCode::kBSONObjectTooLarge, std::string(what) + ": BSONObj size " +
                                                        std::to_string(declared) +
                                                        " is invalid; size must be between 0 and " +
                                                        std::to_string(kMaxInternalBsonObjectSize));
    }
  }
  const std::int64_t length = bson::PeekDocumentLength(rest->data(), rest->size());
  if (length < 0) {
    return Status(ErrorCode::kInvalidBSON,
                  std::string(what) + ": document length does not fit the " +
                      std::to_string(rest->size()) + " bytes that remain in the message");
  }
  const auto size = static_cast<std::size_t>(length);
  int levels = 0;
  Status valid = bson::Validate(rest->data(), size, &levels);
  if (!valid.ok()) return valid.WithContext(what);
  *deepest = std::max(*deepest, levels);
  *doc = bson::DocumentView(rest->data());
  rest->remove_prefix(size);
  return Status::OK();
}

}  // namespace internal
}  // namespace quarry::wire
