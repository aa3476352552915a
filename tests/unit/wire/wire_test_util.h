// Helpers for wire/ tests: documents from JSON and hand-built frames, including broken ones.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "bson/json.h"
#include "bson/value.h"
#include "wire/compression.h"
#include "wire/message_header.h"
#include "wire/request.h"

namespace quarry::wire::testing {

inline bson::Document Json(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

inline void PutI32(std::int32_t v, std::string* out) {
  auto u = static_cast<std::uint32_t>(v);
  for (int byte_idx = 0; byte_idx < 4; ++byte_idx) {
    out->push_back(static_cast<char>(u >> (8 * byte_idx)));
  }
}

// A frame with a correct messageLength around `body`.
inline std::string Frame(std::int32_t op_code, std::string_view body, std::int32_t request_id = 7,
                         std::int32_t response_to = 0) {
  std::string out;
  MessageHeader header;
  header.message_length = static_cast<std::int32_t>(kHeaderSize + body.size());
  header.request_id = request_id;
  header.response_to = response_to;
  header.op_code = op_code;
  AppendHeader(header, &out);
  out.append(body);
  return out;
}

inline std::int32_t MsgOp() { return static_cast<std::int32_t>(OpCode::kMsg); }

// An OP_MSG body (after the header): flagBits then the raw section bytes.
inline std::string MsgBody(std::uint32_t flags, std::string_view sections) {
  std::string out;
  PutI32(static_cast<std::int32_t>(flags), &out);
  out.append(sections);
  return out;
}

inline std::string Kind0(const bson::Document& doc) { return std::string(1, '\0') + doc.bytes(); }

inline std::string Kind1(std::string_view identifier, std::initializer_list<bson::Document> docs) {
  std::string payload(identifier);
  payload.push_back('\0');
  for (const bson::Document& doc : docs) payload += doc.bytes();
  std::string out(1, '\1');
  PutI32(static_cast<std::int32_t>(payload.size() + 4), &out);
  out += payload;
  return out;
}

// ParseRequest with every real codec enabled (the default context).
inline Status Parse(std::string_view message, Request* request = nullptr) {
  CompressionContext codec;
  Request scratch;
  return ParseRequest(message, codec, request ? request : &scratch);
}

inline ErrorCode ParseCode(std::string_view message) { return Parse(message).code(); }

}  // namespace quarry::wire::testing
