#include "commands/unsupported_options.h"

#include <string>

#include "collation/collator.h"

namespace quarry::commands {
namespace {

Status NotYet(std::string what, std::string_view why = {}) {
  std::string message = what + " is not supported by Quarry yet";
  if (!why.empty()) message.append(": ").append(why);
  return Status(ErrorCode::kNotImplemented, std::move(message));
}

}  // namespace

Status CheckCollation(bson::ValueView spec, std::string_view where) {
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                          collation::Collator::ParseArgument(spec, where));
  if (collator == nullptr) return Status::OK();
  return NotYet(
      "collation " + spec.ToJson() + " on " + std::string(where.substr(0, where.find('.'))),
      "indexes and collection defaults use the simple collation; find, aggregate, "
      "count, distinct, update, delete and findAndModify take a collation");
}

Status CheckFindKeyOptions(bool return_key, bson::DocumentView projection,
                           bson::ValueView show_record_id) {
  if (return_key && !projection.empty()) return NotYet("returnKey with a projection");
  if (show_record_id.Truthy()) return NotYet("showRecordId");
  return Status::OK();
}

}  // namespace quarry::commands
