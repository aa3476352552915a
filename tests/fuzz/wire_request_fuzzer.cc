// Fuzzes ParseRequest on whole frames, including OP_COMPRESSED with every codec enabled, then
// reads everything the parse produced and checks that a parsed body re-frames and re-parses.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "touch_document.h"
#include "wire/compression.h"
#include "wire/reply.h"
#include "wire/request.h"

namespace {

using quarry::wire::CompressionContext;
using quarry::wire::Compressor;
using quarry::wire::Request;

volatile std::uint64_t g_sink;

CompressionContext& Codec() {
  // Reused across inputs, as a connection reuses its contexts between messages.
  static CompressionContext* codec = new CompressionContext(
      {Compressor::kNoop, Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd});
  return *codec;
}

void Exercise(std::string_view message) {
  Request request;
  quarry::Status status = quarry::wire::ParseRequest(message, Codec(), &request);
  // Fields a caller reads on failure, to shape an error reply.
  g_sink = g_sink + static_cast<std::uint64_t>(request.more_to_come()) + request.logical_size;
  if (!status.ok()) return;

  std::uint64_t sink = quarry::fuzz::TouchDocument(request.body);
  sink += request.command_name().size() + request.database().size();
  for (const auto& sequence : request.sequences) {
    sink += sequence.identifier.size();
    for (quarry::bson::DocumentView doc : sequence.documents) {
      sink += quarry::fuzz::TouchDocument(doc);
    }
  }
  if (request.has_return_fields_selector) {
    sink += quarry::fuzz::TouchDocument(request.return_fields_selector);
  }
  g_sink = g_sink + sink;

  // A body that parsed must survive a round trip through the reply framing and a codec.
  std::string reply = quarry::wire::BuildOpMsg(1, request.request_id, request.body);
  std::string compressed = Codec().CompressMessage(reply, Compressor::kSnappy);
  quarry::StatusWith<Request> again = quarry::wire::ParseRequest(compressed, Codec());
  if (!again.ok() || again.value().body.bytes() != request.body.bytes()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Exercise(input);
  // The same bytes with a correct messageLength, so the fuzzer need not discover it.
  if (size >= 16 && size <= 48000000) {
    std::string patched(input);
    for (int byte_idx = 0; byte_idx < 4; ++byte_idx) {
      patched[byte_idx] = static_cast<char>(size >> (8 * byte_idx));
    }
    Exercise(patched);
  }
  return 0;
}
