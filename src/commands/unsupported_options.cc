#include "commands/unsupported_options.h"

#include <string>

namespace quarry::commands {
namespace {

Status NotYet(std::string what, std::string_view why = {}) {
  std::string message = what + " is not supported by Quarry yet";
  if (!why.empty()) message.append(": ").append(why);
  return Status(ErrorCode::kNotImplemented, std::move(message));
}

}  // namespace

Status CheckFindKeyOptions(bool return_key, bson::DocumentView projection,
                           bson::ValueView show_record_id) {
  if (return_key && !projection.empty()) return NotYet("returnKey with a projection");
  if (show_record_id.Truthy()) return NotYet("showRecordId");
  return Status::OK();
}

}  // namespace quarry::commands
