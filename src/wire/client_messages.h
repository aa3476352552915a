// Building messages as a client sends them: for tests, fuzz seeds and benchmarks that talk to
// the server without a driver. The server itself never calls these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"
#include "wire/request.h"

namespace quarry::wire {

// An OP_MSG request: flagBits, the body as a kind-0 section, then one kind-1 section per
// sequence. With kChecksumPresent in `flag_bits`, appends the CRC-32C.
std::string BuildOpMsgRequest(std::int32_t request_id, bson::DocumentView body,
                              const std::vector<DocumentSequence>& sequences = {},
                              std::uint32_t flag_bits = 0);

// An OP_QUERY command as drivers send their first handshake: flags 0, numberToSkip 0.
std::string BuildOpQueryRequest(std::int32_t request_id, std::string_view full_collection_name,
                                bson::DocumentView query, std::int32_t number_to_return = -1);

}  // namespace quarry::wire
