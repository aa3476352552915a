#include "server/write_concern.h"

#include <string>

namespace quarry::server {

StatusWith<ParsedWriteConcern> ParseWriteConcern(bson::ValueView value) {
  ParsedWriteConcern parsed;
  if (!value.exists() || value.type() == bson::Type::kNull) return parsed;
  if (value.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "writeConcern must be an object");
  }
  parsed.concern.explicitly_set = true;
  for (const bson::Element& e : value.Document()) {
    if (e.key == "w") {
      if (e.value.IsNumber()) {
        std::int64_t w = e.value.AsInt64();
        if (w < 0) return Status(ErrorCode::kFailedToParse, "w has to be a non-negative number");
        if (w == 0) parsed.concern.unacknowledged = true;
        if (w > 1) {
          parsed.unsatisfiable =
              Status(ErrorCode::kUnsatisfiableWriteConcern, "Not enough data-bearing nodes");
        }
      } else if (e.value.type() == bson::Type::kString) {
        if (e.value.String() == "majority") {
          parsed.concern.journal = true;  // a one-member set's majority is its own journal
        } else {
          parsed.unsatisfiable =
              Status(ErrorCode::kUnknownReplWriteConcern,
                     "No write concern mode named '" + std::string(e.value.String()) +
                         "' found in replica set configuration");
        }
      } else {
        return Status(ErrorCode::kFailedToParse, "w has to be a number or string");
      }
    } else if (e.key == "j" || e.key == "fsync") {
      if (e.value.type() != bson::Type::kBool && !e.value.IsNumber()) {
        return Status(ErrorCode::kTypeMismatch, "BSON field 'writeConcern." + std::string(e.key) +
                                                    "' is the wrong type, expected type 'bool'");
      }
      if (e.value.Truthy()) parsed.concern.journal = true;
    } else if (e.key == "wtimeout" || e.key == "wtimeoutMS" || e.key == "provenance" ||
               e.key == "getLastError") {
      // Accepted: a one-member set never waits for other members, so no timeout can fire.
    } else {
      return Status(ErrorCode::kFailedToParse,
                    "unrecognized write concern field: " + std::string(e.key));
    }
  }
  // {w: 0, j: true} asks for an acknowledgement after all: mongod treats it as w:1, j:true.
  if (parsed.concern.unacknowledged && parsed.concern.journal)
    parsed.concern.unacknowledged = false;
  return parsed;
}

}  // namespace quarry::server
