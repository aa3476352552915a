#include "commands/auth/session_uid.h"

#include "auth/user_digest.h"

namespace quarry::commands {

std::optional<std::string_view> OwnSessionUid(CommandContext& ctx) {
  if (!ctx.service().config.auth_enabled) return auth::NoUserDigest();
  const ConnectionAuth& auth = ctx.connection().auth;
  if (!auth.user.has_value()) return std::nullopt;
  return auth.session_uid;
}

StatusWith<std::optional<std::string_view>> SessionUid(CommandContext& ctx, bson::ValueView given,
                                                       auth::ActionType also_allowed) {
  std::optional<std::string_view> own = OwnSessionUid(ctx);
  if (!given.exists() || !own.has_value()) return own;
  if (given.type() != bson::Type::kBinary) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'lsid.uid' is the wrong type '" +
                                                std::string(bson::TypeAlias(given.type())) +
                                                "', expected type 'binData'");
  }
  const std::string_view uid = given.Binary().data;
  if (uid.size() != own->size()) {
    return Status(ErrorCode::kBadValue,
                  "Unsupported SHA256Block hash length: " + std::to_string(uid.size()));
  }
  const auth::PrivilegeSet& privileges = ctx.connection().auth.privileges;
  if (uid == *own || !ctx.service().config.auth_enabled ||
      privileges.Allows(auth::Target::Cluster(), {auth::ActionType::kImpersonate}) ||
      privileges.Allows(auth::Target::Cluster(), {also_allowed})) {
    return std::optional<std::string_view>(uid);
  }
  return Status(ErrorCode::kUnauthorized, "Unauthorized to set user digest in LogicalSessionId");
}

}  // namespace quarry::commands
