#include "tools/bench/client_codecs.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <msgpack.h>
#include <zlib.h>

namespace quarry::tools::bench {
namespace {

constexpr int kZlibLevel = 3;
constexpr int kGzipWindow = 16 + MAX_WBITS;  // zlib's gzip framing
constexpr int kZlibWindow = MAX_WBITS;       // the zlib framing of "deflate"

Status CodecError(std::string_view what) {
  return Status(ErrorCode::kOperationFailed, std::string(what));
}

StatusWith<std::string> Deflate(const std::string& input, int window) {
  z_stream stream{};
  if (deflateInit2(&stream, kZlibLevel, Z_DEFLATED, window, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return CodecError("deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, input.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return CodecError("deflate did not finish");
  return out;
}

StatusWith<std::string> Inflate(const std::string& input, int window) {
  z_stream stream{};
  if (inflateInit2(&stream, window) != Z_OK) return CodecError("inflateInit2 failed");
  std::string out(input.size() * 4 + 1024, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    if (stream.total_out == out.size()) out.resize(out.size() * 2);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + stream.total_out);
    stream.avail_out = static_cast<uInt>(out.size() - stream.total_out);
    result = inflate(&stream, Z_NO_FLUSH);
    if (result != Z_OK && result != Z_STREAM_END) {
      inflateEnd(&stream);
      return CodecError("inflate failed");
    }
  }
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

StatusWith<std::string> BrotliCompress(const std::string& input) {
  std::size_t size = BrotliEncoderMaxCompressedSize(input.size());
  std::string out(size, '\0');
  if (!BrotliEncoderCompress(1, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, input.size(),
                             reinterpret_cast<const std::uint8_t*>(input.data()), &size,
                             reinterpret_cast<std::uint8_t*>(out.data()))) {
    return CodecError("brotli compression failed");
  }
  out.resize(size);
  return out;
}

StatusWith<std::string> BrotliDecompress(const std::string& input) {
  BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  std::string out(input.size() * 6 + 1024, '\0');
  std::size_t available_in = input.size();
  const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
  std::size_t written = 0;
  BrotliDecoderResult result = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
  while (result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
    if (written == out.size()) out.resize(out.size() * 2);
    std::size_t available_out = out.size() - written;
    auto* next_out = reinterpret_cast<std::uint8_t*>(out.data() + written);
    result = BrotliDecoderDecompressStream(state, &available_in, &next_in, &available_out,
                                           &next_out, nullptr);
    written = out.size() - available_out;
  }
  BrotliDecoderDestroyInstance(state);
  if (result != BROTLI_DECODER_RESULT_SUCCESS) return CodecError("brotli decompression failed");
  out.resize(written);
  return out;
}

void PackValue(msgpack_packer* packer, const bson_iter_t* iter);

void PackDocument(msgpack_packer* packer, bson_iter_t* children, bool as_array,
                  std::uint32_t count) {
  if (as_array) {
    msgpack_pack_array(packer, count);
  } else {
    msgpack_pack_map(packer, count);
  }
  while (bson_iter_next(children)) {
    if (!as_array) {
      const std::uint32_t length = bson_iter_key_len(children);
      msgpack_pack_str(packer, length);
      msgpack_pack_str_body(packer, bson_iter_key(children), length);
    }
    PackValue(packer, children);
  }
}

std::uint32_t CountChildren(const bson_iter_t* iter) {
  bson_iter_t children;
  bson_iter_recurse(iter, &children);
  std::uint32_t count = 0;
  while (bson_iter_next(&children)) ++count;
  return count;
}

void PackValue(msgpack_packer* packer, const bson_iter_t* iter) {
  switch (bson_iter_type(iter)) {
    case BSON_TYPE_UTF8: {
      std::uint32_t length = 0;
      const char* text = bson_iter_utf8(iter, &length);
      msgpack_pack_str(packer, length);
      msgpack_pack_str_body(packer, text, length);
      return;
    }
    case BSON_TYPE_INT32:
      msgpack_pack_int32(packer, bson_iter_int32(iter));
      return;
    case BSON_TYPE_INT64:
      msgpack_pack_int64(packer, bson_iter_int64(iter));
      return;
    case BSON_TYPE_DOUBLE:
      msgpack_pack_double(packer, bson_iter_double(iter));
      return;
    case BSON_TYPE_BOOL:
      bson_iter_bool(iter) ? msgpack_pack_true(packer) : msgpack_pack_false(packer);
      return;
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY: {
      const std::uint32_t count = CountChildren(iter);
      bson_iter_t children;
      bson_iter_recurse(iter, &children);
      PackDocument(packer, &children, bson_iter_type(iter) == BSON_TYPE_ARRAY, count);
      return;
    }
    default:  // the generated documents hold no other JSON types
      msgpack_pack_nil(packer);
  }
}

}  // namespace

const std::vector<ClientCodec>& AllClientCodecs() {
  static const std::vector<ClientCodec> codecs = {ClientCodec::kNone, ClientCodec::kBrotli1,
                                                  ClientCodec::kGzip3, ClientCodec::kDeflate3,
                                                  ClientCodec::kMsgpack};
  return codecs;
}

std::string_view ClientCodecName(ClientCodec codec) {
  switch (codec) {
    case ClientCodec::kNone:
      return "none";
    case ClientCodec::kBrotli1:
      return "brotli-1";
    case ClientCodec::kGzip3:
      return "gzip-3";
    case ClientCodec::kDeflate3:
      return "deflate-3";
    case ClientCodec::kMsgpack:
      return "msgpack";
  }
  return "?";
}

StatusWith<std::string> EncodeForClient(ClientCodec codec, const std::string& json,
                                        const bson_t& bson) {
  switch (codec) {
    case ClientCodec::kNone:
      return json;
    case ClientCodec::kBrotli1:
      return BrotliCompress(json);
    case ClientCodec::kGzip3:
      return Deflate(json, kGzipWindow);
    case ClientCodec::kDeflate3:
      return Deflate(json, kZlibWindow);
    case ClientCodec::kMsgpack: {
      msgpack_sbuffer buffer;
      msgpack_sbuffer_init(&buffer);
      msgpack_packer packer;
      msgpack_packer_init(&packer, &buffer, msgpack_sbuffer_write);
      bson_iter_t iter;
      bson_iter_init(&iter, &bson);
      std::uint32_t count = 0;
      bson_iter_t counter = iter;
      while (bson_iter_next(&counter)) ++count;
      PackDocument(&packer, &iter, false, count);
      std::string out(buffer.data, buffer.size);
      msgpack_sbuffer_destroy(&buffer);
      return out;
    }
  }
  return CodecError("unknown codec");
}

StatusWith<std::size_t> DecodeForClient(ClientCodec codec, const std::string& stored) {
  switch (codec) {
    case ClientCodec::kNone:
      return stored.size();
    case ClientCodec::kBrotli1: {
      auto out = BrotliDecompress(stored);
      if (!out.ok()) return out.status();
      return out.value().size();
    }
    case ClientCodec::kGzip3:
    case ClientCodec::kDeflate3: {
      auto out = Inflate(stored, codec == ClientCodec::kGzip3 ? kGzipWindow : kZlibWindow);
      if (!out.ok()) return out.status();
      return out.value().size();
    }
    case ClientCodec::kMsgpack: {
      msgpack_zone zone;
      msgpack_zone_init(&zone, 1 << 20);
      msgpack_object object;
      const msgpack_unpack_return unpacked =
          msgpack_unpack(stored.data(), stored.size(), nullptr, &zone, &object);
      const std::size_t size = unpacked == MSGPACK_UNPACK_SUCCESS ? object.via.map.size : 0;
      msgpack_zone_destroy(&zone);
      if (unpacked != MSGPACK_UNPACK_SUCCESS) return CodecError("msgpack unpack failed");
      return size;
    }
  }
  return CodecError("unknown codec");
}

}  // namespace quarry::tools::bench
