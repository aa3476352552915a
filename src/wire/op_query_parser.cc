// OP_QUERY parsing, used only for the first handshake command of a connection, which drivers
// send as OP_QUERY (MongoDB's Handshake specification).
#include "base/endian.h"
#include "wire/request_internal.h"

namespace quarry::wire::internal {

Status ParseOpQuery(std::string_view message, Request* request) {
  std::string_view rest = message.substr(kHeaderSize);
  auto truncated = [](std::string_view field) {
    return Status(ErrorCode::kProtocolError,
                  "OP_QUERY is truncated before its " + std::string(field));
  };
  if (rest.size() < 4) return truncated("flags");
  request->query_flags = LoadLittleEndianInt32(rest.data());
  rest.remove_prefix(4);

  const std::size_t nul = rest.find('\0');
  if (nul == std::string_view::npos) return truncated("fullCollectionName terminator");
  request->full_collection_name = rest.substr(0, nul);
  rest.remove_prefix(nul + 1);

  if (rest.size() < 8) return truncated("numberToSkip and numberToReturn");
  request->number_to_skip = LoadLittleEndianInt32(rest.data());
  request->number_to_return = LoadLittleEndianInt32(rest.data() + 4);
  rest.remove_prefix(8);

  bson::DocumentView query;
  QUARRY_RETURN_IF_ERROR(ReadDocument("OP_QUERY query", &rest, &query, &request->deepest_nesting));
  if (!rest.empty()) {
    QUARRY_RETURN_IF_ERROR(ReadDocument("OP_QUERY returnFieldsSelector", &rest,
                                        &request->return_fields_selector,
                                        &request->deepest_nesting));
    request->has_return_fields_selector = true;
  }
  if (!rest.empty()) {
    return Status(ErrorCode::kProtocolError,
                  "OP_QUERY has " + std::to_string(rest.size()) + " bytes after its documents");
  }

  // Drivers talking to mongos wrap the command as {$query: {...}, $readPreference: {...}}.
  bson::ValueView wrapped = query.Get("$query");
  request->body = wrapped.type() == bson::Type::kDocument ? wrapped.Document() : query;
  return Status::OK();
}

}  // namespace quarry::wire::internal
