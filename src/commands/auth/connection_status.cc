// connectionStatus (who this connection is authenticated as) and serverStatus' security
// section.
#include "auth/scram.h"
#include "bson/builder.h"
#include "commands/auth/auth_status.h"
#include "commands/auth/user_store.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunConnectionStatus(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bool show_privileges, args.OptionalBool("showPrivileges", false));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(RefreshAuthentication(ctx));
  const ConnectionAuth& auth = ctx.connection().auth;
  bson::ArrayBuilder users;
  std::vector<RoleName> roles;
  if (auth.user.has_value()) {
    bson::DocumentBuilder u;
    u.AppendString("user", auth.user->user);
    u.AppendString("db", auth.user->db);
    users.AppendDocument(std::move(u).Finish());
    roles = auth.user->inherited;
  }
  bson::DocumentBuilder b;
  b.OpenDocument("authInfo");
  b.AppendArray("authenticatedUsers", std::move(users).Finish());
  b.AppendArray("authenticatedUserRoles", RoleNamesToArray(roles));
  if (show_privileges) {
    bson::ArrayBuilder privileges;
    for (const auth::Privilege& p : auth.privileges.privileges()) {
      privileges.AppendDocument(p.ToDocument());
    }
    b.AppendArray("authenticatedUserPrivileges", std::move(privileges).Finish());
  }
  b.Close();
  return std::move(b).Finish();
}

void AppendMechanism(std::string_view name, const MechanismCounters& counters,
                     bson::DocumentBuilder* b) {
  b->OpenDocument(name);
  b->OpenDocument("speculativeAuthenticate")
      .AppendInt64("received", counters.speculative_received.load())
      .AppendInt64("successful", counters.speculative_successful.load())
      .Close();
  b->OpenDocument("clusterAuthenticate")
      .AppendInt64("received", 0)
      .AppendInt64("successful", 0)
      .Close();
  b->OpenDocument("authenticate")
      .AppendInt64("received", counters.received.load())
      .AppendInt64("successful", counters.successful.load())
      .Close();
  b->Close();
}

}  // namespace

void AppendSecuritySection(const AuthState& state, bson::DocumentBuilder* b) {
  b->OpenDocument("security").OpenDocument("authentication").OpenDocument("mechanisms");
  AppendMechanism(auth::MechanismName(auth::ScramHash::kSha1), state.sha1, b);
  AppendMechanism(auth::MechanismName(auth::ScramHash::kSha256), state.sha256, b);
  b->Close().Close().Close();
}

void RegisterConnectionStatusCommand(CommandRegistry& registry) {
  registry.Add({.name = "connectionStatus", .run = RunConnectionStatus, .auth = OpenToAll()});
}

}  // namespace quarry::commands
