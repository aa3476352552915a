// Reply framing. Replies are built in one buffer: header, then the fixed fields, then the
// document bytes, so a multi-megabyte reply is copied once.
#include "wire/reply.h"

#include "bson/builder.h"
#include "wire/endian_internal.h"
#include "wire/message_header.h"

namespace quarry::wire {
namespace {

constexpr std::int32_t kAwaitCapable = 8;

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

std::string BuildOpMsg(std::int32_t request_id, std::int32_t response_to,
                       bson::DocumentView body) {
  const std::size_t total = kHeaderSize + 4 + 1 + body.size();
  std::string out;
  out.reserve(total);
  AppendHeaderFor(total, request_id, response_to, OpCode::kMsg, &out);
  internal::AppendU32(0, &out);  // flagBits
  out.push_back('\0');           // section kind 0
  out.append(body.bytes());
  return out;
}

std::string BuildOpReply(std::int32_t request_id, std::int32_t response_to,
                         bson::DocumentView doc) {
  const std::size_t total = kHeaderSize + 4 + 8 + 4 + 4 + doc.size();
  std::string out;
  out.reserve(total);
  AppendHeaderFor(total, request_id, response_to, OpCode::kReply, &out);
  internal::AppendI32(kAwaitCapable, &out);  // responseFlags
  internal::AppendI64(0, &out);              // cursorID
  internal::AppendI32(0, &out);              // startingFrom
  internal::AppendI32(1, &out);              // numberReturned
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
