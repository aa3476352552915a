// Reply framing: the header and fixed fields, then the document bytes.
#include "wire/reply.h"

#include "base/endian.h"
#include "bson/builder.h"
#include "wire/message_header.h"

namespace quarry::wire {
namespace {

constexpr std::int32_t kAwaitCapable = 8;
// Header, flagBits, section kind.
constexpr std::size_t kOpMsgPrefixSize = kHeaderSize + 4 + 1;
// Header, responseFlags, cursorID, startingFrom, numberReturned.
constexpr std::size_t kOpReplyPrefixSize = kHeaderSize + 4 + 8 + 4 + 4;

void AppendHeaderFor(std::size_t total, std::int32_t request_id, std::int32_t response_to,
                     OpCode op_code, std::string* out) {
  MessageHeader header;
  header.message_length = static_cast<std::int32_t>(total);
  header.request_id = request_id;
  header.response_to = response_to;
  header.op_code = static_cast<std::int32_t>(op_code);
  AppendHeader(header, out);
}

}  // namespace

void AppendOpMsgPrefix(std::int32_t request_id, std::int32_t response_to, std::size_t body_size,
                       std::string* out) {
  AppendHeaderFor(kOpMsgPrefixSize + body_size, request_id, response_to, OpCode::kMsg, out);
  AppendLittleEndian32(0, out);  // flagBits
  out->push_back('\0');          // section kind 0
}

void AppendOpReplyPrefix(std::int32_t request_id, std::int32_t response_to, std::size_t doc_size,
                         std::string* out) {
  AppendHeaderFor(kOpReplyPrefixSize + doc_size, request_id, response_to, OpCode::kReply, out);
  AppendLittleEndianInt32(kAwaitCapable, out);  // responseFlags
  AppendLittleEndian64(0, out);                 // cursorID
  AppendLittleEndianInt32(0, out);              // startingFrom
  AppendLittleEndianInt32(1, out);              // numberReturned
}

std::string BuildOpMsgPrefix(std::int32_t request_id, std::int32_t response_to,
                             std::size_t body_size) {
  std::string out;
  out.reserve(kOpMsgPrefixSize);
  AppendOpMsgPrefix(request_id, response_to, body_size, &out);
  return out;
}

std::string BuildOpReplyPrefix(std::int32_t request_id, std::int32_t response_to,
                               std::size_t doc_size) {
  std::string out;
  out.reserve(kOpReplyPrefixSize);
  AppendOpReplyPrefix(request_id, response_to, doc_size, &out);
  return out;
}

std::string BuildOpMsg(std::int32_t request_id, std::int32_t response_to, bson::DocumentView body) {
  std::string out = BuildOpMsgPrefix(request_id, response_to, body.size());
  out.reserve(kOpMsgPrefixSize + body.size());
  out.append(body.bytes());
  return out;
}

std::string BuildOpReply(std::int32_t request_id, std::int32_t response_to,
                         bson::DocumentView doc) {
  std::string out = BuildOpReplyPrefix(request_id, response_to, doc.size());
  out.reserve(kOpReplyPrefixSize + doc.size());
  out.append(doc.bytes());
  return out;
}

bson::Document BuildErrorReply(const Status& status) {
  bson::DocumentBuilder builder;
  builder.AppendDouble("ok", 0.0);
  builder.AppendString("errmsg", status.reason());
  builder.AppendInt32("code", static_cast<std::int32_t>(status.code()));
  builder.AppendString("codeName", status.code_name());
  if (!status.extra_info().empty()) {
    builder.AppendElements(bson::DocumentView(status.extra_info().data()));
  }
  return std::move(builder).Finish();
}

}  // namespace quarry::wire
