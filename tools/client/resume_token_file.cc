// Resume token file: read at start, replaced by rename after each event.
#include "tools/client/resume_token_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace quarry::tools::client {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

StatusWith<std::optional<BsonPtr>> ReadResumeToken(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::optional<BsonPtr>();
    return Status(ErrorCode::kBadValue,
                  "cannot read resume token file " + path + ": " + ErrnoText());
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  if (json.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status(ErrorCode::kBadValue, "resume token file " + path + " is empty");
  }
  bson_error_t error;
  bson_t* token = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                     static_cast<ssize_t>(json.size()), &error);
  if (token == nullptr) {
    return Status(ErrorCode::kBadValue,
                  "resume token file " + path + " does not hold a JSON document: " + error.message);
  }
  return std::optional<BsonPtr>(BsonPtr(token));
}

Status WriteResumeToken(const std::string& path, const bson_t& token) {
  size_t length = 0;
  char* json = bson_as_canonical_extended_json(&token, &length);
  if (json == nullptr) {
    return Status(ErrorCode::kOperationFailed, "resume token cannot be written as JSON");
  }
  std::string text(json, length);
  bson_free(json);
  text += '\n';

  // Same directory as the target, so the rename stays within one file system.
  const std::string temp = path + ".tmp";
  std::FILE* out = std::fopen(temp.c_str(), "wb");
  if (out == nullptr) {
    return Status(ErrorCode::kOperationFailed,
                  "cannot write resume token file " + temp + ": " + ErrnoText());
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const bool closed = std::fclose(out) == 0;
  if (!written || !closed) {
    std::remove(temp.c_str());
    return Status(ErrorCode::kOperationFailed,
                  "cannot write resume token file " + temp + ": " + ErrnoText());
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return Status(ErrorCode::kOperationFailed,
                  "cannot replace resume token file " + path + ": " + ErrnoText());
  }
  return Status::OK();
}

}  // namespace quarry::tools::client
