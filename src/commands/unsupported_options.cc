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

Status CheckFindKeyOptions(bool return_key, bson::DocumentView projection) {
  if (return_key && !projection.empty()) return NotYet("returnKey with a projection");
  return Status::OK();
}

}  // namespace quarry::commands
