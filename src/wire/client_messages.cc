// Client-side message building (see client_messages.h).
#include "wire/client_messages.h"

#include "base/crc32c.h"
#include "base/endian.h"
#include "wire/message_header.h"

namespace quarry::wire {
namespace {

void FinishHeader(std::int32_t request_id, OpCode op_code, std::string* out) {
  MessageHeader header;
  header.message_length = static_cast<std::int32_t>(out->size());
  header.request_id = request_id;
  header.op_code = static_cast<std::int32_t>(op_code);
  std::string bytes;
  AppendHeader(header, &bytes);
  out->replace(0, kHeaderSize, bytes);
}

}  // namespace

std::string BuildOpMsgRequest(std::int32_t request_id, bson::DocumentView body,
                              const std::vector<DocumentSequence>& sequences,
                              std::uint32_t flag_bits) {
  std::string out(kHeaderSize, '\0');
  AppendLittleEndian32(flag_bits, &out);
  out.push_back('\0');
  out.append(body.bytes());
  for (const DocumentSequence& sequence : sequences) {
    out.push_back('\1');
    const std::size_t size_at = out.size();
    out.append(4, '\0');
    out.append(sequence.identifier);
    out.push_back('\0');
    for (bson::DocumentView doc : sequence.documents) out.append(doc.bytes());
    StoreLittleEndian32(static_cast<std::uint32_t>(out.size() - size_at), out.data() + size_at);
  }
  if (flag_bits & kChecksumPresent) {
    out.append(4, '\0');
    FinishHeader(request_id, OpCode::kMsg, &out);
    const std::uint32_t crc = Crc32c(std::string_view(out).substr(0, out.size() - 4));
    StoreLittleEndian32(crc, out.data() + out.size() - 4);
    return out;
  }
  FinishHeader(request_id, OpCode::kMsg, &out);
  return out;
}

std::string BuildOpQueryRequest(std::int32_t request_id, std::string_view full_collection_name,
                                bson::DocumentView query, std::int32_t number_to_return) {
  std::string out(kHeaderSize, '\0');
  AppendLittleEndianInt32(0, &out);  // flags
  out.append(full_collection_name);
  out.push_back('\0');
  AppendLittleEndianInt32(0, &out);  // numberToSkip
  AppendLittleEndianInt32(number_to_return, &out);
  out.append(query.bytes());
  FinishHeader(request_id, OpCode::kQuery, &out);
  return out;
}

}  // namespace quarry::wire
