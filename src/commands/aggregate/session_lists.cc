// $listLocalSessions and $listSessions: the server's logical sessions, the caller's own unless
// the stage names other users.
#include "commands/aggregate/session_lists.h"

#include <set>
#include <string>

#include "auth/user_digest.h"
#include "bson/builder.h"
#include "bson/types.h"
#include "commands/auth/session_uid.h"
#include "commands/session_control.h"
#include "commands/strict_document.h"

namespace quarry::commands {

StatusWith<std::vector<bson::Document>> SessionListDocuments(CommandContext& ctx,
                                                             std::string_view stage,
                                                             bson::ValueView spec) {
  if (spec.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, std::string(stage) +
                                                " options must be specified in an object, but "
                                                "found: " +
                                                std::string(bson::TypeAlias(spec.type())));
  }
  QUARRY_RETURN_IF_ERROR(
      CheckStrictDocument(spec.Document(), stage,
                          {{"allUsers", bson::Type::kBool, "bool"},
                           {"users", bson::Type::kArray, "array"},
                           {"$_internalPredicate", bson::Type::kDocument, "object"}}));
  if (spec.Document().Has("$_internalPredicate")) {
    return Status(ErrorCode::kNotImplemented,
                  std::string(stage) + "'s $_internalPredicate is not supported by Quarry");
  }
  const bool all_users = spec.Document().Get("allUsers").Truthy();
  bson::ValueView users = spec.Document().Get("users");
  const bool names_users = users.exists() && !users.Document().empty();
  if (all_users && names_users) {
    return Status(
        ErrorCode::kUnsupportedFormat,
        std::string(stage) + " may not specify {allUsers:true} and {users:[...]} at the same time");
  }
  std::set<std::string> uids;
  if (names_users) {
    for (const bson::Element& e : users.Document()) {
      const std::string path = std::string(stage) + ".users";
      if (e.value.type() != bson::Type::kDocument) {
        return WrongFieldType(path + "." + std::string(e.key), e.value, "object");
      }
      QUARRY_RETURN_IF_ERROR(CheckStrictDocument(e.value.Document(), path,
                                                 {{"user", bson::Type::kString, "string", true},
                                                  {"db", bson::Type::kString, "string", true}}));
      bson::DocumentView user = e.value.Document();
      const std::string_view name = user.Get("user").String();
      const std::string_view db = user.Get("db").String();
      uids.insert(name.empty() && db.empty() ? auth::NoUserDigest() : auth::UserDigest(name, db));
    }
  } else if (!all_users) {
    std::optional<std::string_view> own = OwnSessionUid(ctx);
    if (!own.has_value()) return Status(ErrorCode::kUnauthorized, "There is no user authenticated");
    uids.insert(std::string(*own));
  }
  std::vector<bson::Document> docs;
  if (ctx.service().sessions == nullptr) return docs;
  for (const LocalSession& session : ctx.service().sessions->List()) {
    const std::string_view uid = SessionUidOfKey(session.key);
    if (!all_users && !uids.contains(std::string(uid))) continue;
    bson::DocumentBuilder b;
    b.OpenDocument("_id")
        .AppendBinary("id", 4, SessionIdOfKey(session.key))
        .AppendBinary("uid", 0, uid)
        .Close();
    b.AppendDate("lastUse", session.last_use_ms);
    if (!session.user.empty()) b.OpenDocument("user").AppendString("name", session.user).Close();
    docs.push_back(std::move(b).Finish());
  }
  return docs;
}

}  // namespace quarry::commands
