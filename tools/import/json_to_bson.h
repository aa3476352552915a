// One JSON document to BSON, reading MongoDB Extended JSON (canonical, relaxed, and the legacy
// forms mongoexport and older tools write) as mongoimport does: {"$oid": ...} becomes an
// ObjectId, {"$date": ...} a date, and so on. Integers become int32 when they fit, else int64,
// else double; other numbers double. Parses with simdjson's On-Demand API straight into the
// BSON builder, with no tree in between. A document that is not strict JSON is read as the
// mongo shell writes it (ObjectId("..."), unquoted keys...: shell_json.h), as mongoimport does.
#pragma once

#include <bson/bson.h>

#include <cstddef>
#include <memory>

#include "base/status.h"

namespace quarry::tools::importing {

class JsonToBson {
 public:
  JsonToBson();
  ~JsonToBson();
  JsonToBson(const JsonToBson&) = delete;
  JsonToBson& operator=(const JsonToBson&) = delete;

  // Appends the fields of the JSON object in `text` (of `size` bytes, with `readable` bytes
  // from `text` safe to read) to `out`, which should be empty. Errors (kFailedToParse) say
  // what is wrong and where: invalid JSON or UTF-8, a top-level value that is not an object,
  // a malformed Extended JSON value, a key with a NUL byte. On error `out` holds a partial
  // document: reinitialize it.
  Status Convert(const char* text, std::size_t size, std::size_t readable, bson_t* out);

 private:
  Status ConvertStrict(const char* text, std::size_t size, std::size_t readable, bson_t* out);

  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace quarry::tools::importing
