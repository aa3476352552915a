// Building the server's replies: OP_MSG for OP_MSG requests, OP_REPLY for the OP_QUERY handshake
// (MongoDB's OP_MSG specification and Wire Protocol documentation), and the error document for
// failures found below server/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::wire {

// An OP_MSG with flagBits 0 and one kind-0 section holding `body`: the only reply shape every
// driver accepts (no checksum, no sequences).
std::string BuildOpMsg(std::int32_t request_id, std::int32_t response_to, bson::DocumentView body);

// An OP_REPLY carrying one document: responseFlags 8 (AwaitCapable, as mongod), cursorID 0,
// startingFrom 0, numberReturned 1.
std::string BuildOpReply(std::int32_t request_id, std::int32_t response_to, bson::DocumentView doc);

// The bytes of BuildOpMsg / BuildOpReply that precede the document, for a caller that writes
// the document from its own buffer (a gather write) instead of copying it into the message.
std::string BuildOpMsgPrefix(std::int32_t request_id, std::int32_t response_to,
                             std::size_t body_size);
std::string BuildOpReplyPrefix(std::int32_t request_id, std::int32_t response_to,
                               std::size_t doc_size);
// The same, appended to `out`, so that a caller can reuse one buffer for every reply.
void AppendOpMsgPrefix(std::int32_t request_id, std::int32_t response_to, std::size_t body_size,
                       std::string* out);
void AppendOpReplyPrefix(std::int32_t request_id, std::int32_t response_to, std::size_t doc_size,
                         std::string* out);

// MongoDB's error reply for `status`: {ok: 0.0, errmsg, code, codeName} followed by the
// fields of status.extra_info(). REQUIRES: !status.ok().
bson::Document BuildErrorReply(const Status& status);

}  // namespace quarry::wire
