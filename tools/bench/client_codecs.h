// What an application does to a large JSON document before storing it in Redis, as the
// experiment this benchmark repeats compared: nothing, brotli at quality 1, gzip and deflate at
// level 3 (zlib), or MessagePack instead of JSON text. Encode then decode gives the document back
// (as JSON text, or for MessagePack as its unpacked objects).
#pragma once

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace quarry::tools::bench {

enum class ClientCodec { kNone, kBrotli1, kGzip3, kDeflate3, kMsgpack };

const std::vector<ClientCodec>& AllClientCodecs();
std::string_view ClientCodecName(ClientCodec codec);  // "none", "brotli-1", "gzip-3", ...

// `json` is the document's text, `bson` the same document (MessagePack packs its values).
StatusWith<std::string> EncodeForClient(ClientCodec codec, const std::string& json,
                                        const bson_t& bson);
// Returns the decoded size: the JSON text's bytes, or for MessagePack the unpacked objects'.
StatusWith<std::size_t> DecodeForClient(ClientCodec codec, const std::string& stored);

}  // namespace quarry::tools::bench
