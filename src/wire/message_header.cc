// Header decoding and the opcode names used in errors and logs.
#include "wire/message_header.h"

#include "base/endian.h"
#include "wire/limits.h"

namespace quarry::wire {

std::string_view OpCodeName(std::int32_t op_code) {
  switch (static_cast<OpCode>(op_code)) {
    case OpCode::kReply:
      return "OP_REPLY";
    case OpCode::kUpdate:
      return "OP_UPDATE";
    case OpCode::kInsert:
      return "OP_INSERT";
    case OpCode::kReserved:
      return "RESERVED";
    case OpCode::kQuery:
      return "OP_QUERY";
    case OpCode::kGetMore:
      return "OP_GET_MORE";
    case OpCode::kDelete:
      return "OP_DELETE";
    case OpCode::kKillCursors:
      return "OP_KILL_CURSORS";
    case OpCode::kCompressed:
      return "OP_COMPRESSED";
    case OpCode::kMsg:
      return "OP_MSG";
  }
  return "unknown";
}

MessageHeader ReadHeader(const char* data) {
  MessageHeader header;
  header.message_length = LoadLittleEndianInt32(data);
  header.request_id = LoadLittleEndianInt32(data + 4);
  header.response_to = LoadLittleEndianInt32(data + 8);
  header.op_code = LoadLittleEndianInt32(data + 12);
  return header;
}

void AppendHeader(const MessageHeader& header, std::string* out) {
  AppendLittleEndianInt32(header.message_length, out);
  AppendLittleEndianInt32(header.request_id, out);
  AppendLittleEndianInt32(header.response_to, out);
  AppendLittleEndianInt32(header.op_code, out);
}

Status CheckMessageLength(std::int32_t message_length) {
  if (message_length < static_cast<std::int32_t>(kHeaderSize)) {
    return Status(ErrorCode::kProtocolError, "message length " + std::to_string(message_length) +
                                                 " is smaller than the 16-byte header");
  }
  if (static_cast<std::size_t>(message_length) > kMaxMessageSizeBytes) {
    return Status(ErrorCode::kProtocolError, "message length " + std::to_string(message_length) +
                                                 " exceeds the maximum of " +
                                                 std::to_string(kMaxMessageSizeBytes) + " bytes");
  }
  return Status::OK();
}

}  // namespace quarry::wire
