#include "commands/unsupported_options.h"

#include <string>

namespace quarry::commands {
namespace {

Status NotYet(std::string what, std::string_view why = {}) {
  std::string message = what + " is not supported by Quarry yet";
  if (!why.empty()) message.append(": ").append(why);
  return Status(ErrorCode::kNotImplemented, std::move(message));
}

bool IsSimpleCollation(bson::ValueView collation) {
  if (collation.type() != bson::Type::kDocument) return false;
  bson::DocumentView spec = collation.Document();
  bson::ValueView locale = spec.Get("locale");
  return spec.CountElements() == 1 && locale.type() == bson::Type::kString &&
         locale.String() == "simple";
}

}  // namespace

Status CheckCollation(bson::ValueView collation, std::string_view where) {
  if (!collation.exists() || collation.type() == bson::Type::kNull) return Status::OK();
  if (collation.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + std::string(where) + "collation' is the wrong type '" +
                      std::string(bson::TypeAlias(collation.type())) + "', expected type 'object'");
  }
  if (IsSimpleCollation(collation)) return Status::OK();
  return NotYet("collation " + collation.ToJson(),
                "strings compare by their UTF-8 bytes (the simple collation), and only "
                "{locale: \"simple\"} is accepted");
}

Status CheckFindKeyOptions(bool return_key, bson::DocumentView projection,
                           bson::ValueView show_record_id) {
  if (return_key && !projection.empty()) return NotYet("returnKey with a projection");
  if (show_record_id.Truthy()) return NotYet("showRecordId");
  return Status::OK();
}

}  // namespace quarry::commands
