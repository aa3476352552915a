// saslStart, saslContinue and logout; hello's speculativeAuthenticate and saslSupportedMechs.
// A failed authentication is logged, counted, and its reply held back longer the more failures
// its address had recently (FailureThrottle), on the DelayedReplies timer, never on the
// connection's thread.
#include "commands/auth/sasl.h"

#include "auth/scram.h"
#include "base/log.h"
#include "bson/builder.h"
#include "commands/auth/sasl_conversation.h"
#include "commands/auth/user_store.h"
#include "commands/command.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

constexpr std::int32_t kConversationId = 1;

std::optional<auth::ScramHash> ParseMechanism(std::string_view name) {
  if (name == "SCRAM-SHA-1") return auth::ScramHash::kSha1;
  if (name == "SCRAM-SHA-256") return auth::ScramHash::kSha256;
  return std::nullopt;
}

MechanismCounters& CountersFor(CommandContext& ctx, auth::ScramHash hash) {
  return hash == auth::ScramHash::kSha1 ? ctx.service().auth.sha1 : ctx.service().auth.sha256;
}

// The payload as BinData, or as a base64 string (the legacy shell's form).
StatusWith<std::string> Payload(bson::ValueView payload) {
  if (payload.type() == bson::Type::kBinary) return std::string(payload.Binary().data);
  if (payload.type() == bson::Type::kString) return auth::Base64Decode(payload.String());
  return Status(ErrorCode::kBadValue, "Missing or invalid SASL payload");
}

std::string ConnectionContext(const CommandContext& ctx) {
  return "conn" + std::to_string(ctx.connection().id);
}

void LogFailure(CommandContext& ctx, const SaslConversation& conversation, const Status& reason) {
  log::Write(log::Severity::kInfo, "ACCESS", 20249, ConnectionContext(ctx), "Authentication failed",
             {{"mechanism", std::string(auth::MechanismName(conversation.scram.hash()))},
              {"speculative", conversation.speculative},
              {"principalName", conversation.user},
              {"authenticationDatabase", conversation.db},
              {"remote", ctx.connection().remote},
              {"error", reason.ToString()}});
}

// What the client is told about any failure: nothing that tells a wrong password from an
// unknown user, as mongod.
Status ClientFailure() {
  return Status(ErrorCode::kAuthenticationFailed, "Authentication failed.");
}

// Logs and counts the failure, ends the conversation, and returns the error for the client;
// `*delay` is how long its reply waits.
Status Failed(CommandContext& ctx, const SaslConversation& conversation, const Status& reason,
              std::chrono::milliseconds* delay) {
  LogFailure(ctx, conversation, reason);
  ctx.connection().auth.conversation.reset();
  *delay = ctx.service().auth.failures.RecordFailure(AddressOf(ctx.connection().remote),
                                                     std::chrono::steady_clock::now());
  return ClientFailure();
}

// Replies with `status` after `delay`, without holding this thread.
StatusWith<bson::Document> FailAfter(CommandContext& ctx, Status status,
                                     std::chrono::milliseconds delay) {
  if (delay.count() == 0) return status;
  DelayedReplies* delayed = &ctx.service().auth.delayed;
  ctx.Defer([delayed, status, delay](CommandContext::Completion complete) {
    delayed->After(delay, [complete = std::move(complete), status]() { complete(status); });
  });
  return bson::Document();
}

// mongod 7.0 keeps one user per connection: signing in again as that user is fine, as another
// needs logout first (AuthorizationSession::addAndAuthorizeUser's 5626701 and 5626702).
Status CheckOneUserPerConnection(const CommandContext& ctx, const SaslConversation& conversation) {
  const std::optional<AuthenticatedUser>& current = ctx.connection().auth.user;
  if (!current.has_value()) return Status::OK();
  if (current->user == conversation.user && current->db == conversation.db) return Status::OK();
  const std::string previous = current->name().FullName();
  if (current->db == conversation.db) {
    return Status(static_cast<ErrorCode>(5626701),
                  "Each client connection may only be authenticated once. Previously "
                  "authenticated as: " +
                      previous);
  }
  return Status(static_cast<ErrorCode>(5626702),
                "Client has attempted to authenticate on multiple databases.Already "
                "authenticated as: " +
                    previous);
}

Status Succeeded(CommandContext& ctx, const SaslConversation& conversation,
                 bson::DocumentView user_document) {
  if (Status one_user = CheckOneUserPerConnection(ctx, conversation); !one_user.ok()) {
    LogFailure(ctx, conversation, one_user);
    return one_user;
  }
  QUARRY_RETURN_IF_ERROR(SignIn(ctx, user_document));
  MechanismCounters& counters = CountersFor(ctx, conversation.scram.hash());
  counters.successful.fetch_add(1);
  if (conversation.speculative) counters.speculative_successful.fetch_add(1);
  ctx.service().auth.failures.RecordSuccess(AddressOf(ctx.connection().remote));
  log::Write(log::Severity::kInfo, "ACCESS", 20250, ConnectionContext(ctx),
             "Authentication succeeded",
             {{"mechanism", std::string(auth::MechanismName(conversation.scram.hash()))},
              {"speculative", conversation.speculative},
              {"principalName", conversation.user},
              {"authenticationDatabase", conversation.db},
              {"remote", ctx.connection().remote}});
  return Status::OK();
}

bson::Document SaslReply(bool done, std::string_view payload) {
  bson::DocumentBuilder b;
  b.AppendInt32("conversationId", kConversationId);
  b.AppendBool("done", done);
  b.AppendBinary("payload", 0, payload);
  return std::move(b).Finish();
}

// The stored secrets of `mechanism` in a user document, or nullopt.
std::optional<auth::ScramSecrets> SecretsOf(bson::DocumentView user, auth::ScramHash hash) {
  bson::ValueView credentials = user.Get("credentials");
  if (credentials.type() != bson::Type::kDocument) return std::nullopt;
  bson::ValueView mechanism = credentials.Document().Get(auth::MechanismName(hash));
  if (mechanism.type() != bson::Type::kDocument) return std::nullopt;
  bson::DocumentView m = mechanism.Document();
  if (!m.Get("iterationCount").IsNumber() || m.Get("salt").type() != bson::Type::kString ||
      m.Get("storedKey").type() != bson::Type::kString ||
      m.Get("serverKey").type() != bson::Type::kString) {
    return std::nullopt;
  }
  return auth::ScramSecrets{.iteration_count = static_cast<int>(m.Get("iterationCount").AsInt64()),
                            .salt = std::string(m.Get("salt").String()),
                            .stored_key = std::string(m.Get("storedKey").String()),
                            .server_key = std::string(m.Get("serverKey").String())};
}

// The first step: reads client-first, finds the user, answers server-first. On failure,
// `*delay` is set and the error is the client's.
StatusWith<bson::Document> Start(CommandContext& ctx, std::string_view mechanism_name,
                                 bson::ValueView payload_value, std::string_view db,
                                 bool skip_empty_exchange, bool speculative,
                                 std::chrono::milliseconds* delay) {
  *delay = std::chrono::milliseconds(0);
  std::optional<auth::ScramHash> hash = ParseMechanism(mechanism_name);
  if (!hash.has_value()) {
    return Status(ErrorCode::kMechanismUnavailable, "Received authentication for mechanism " +
                                                        std::string(mechanism_name) +
                                                        " which is unknown or not enabled");
  }
  MechanismCounters& counters = CountersFor(ctx, *hash);
  counters.received.fetch_add(1);
  if (speculative) counters.speculative_received.fetch_add(1);
  auto conversation = std::make_shared<SaslConversation>(*hash);
  conversation->db = std::string(db);
  conversation->skip_empty_exchange = skip_empty_exchange;
  conversation->speculative = speculative;
  ctx.connection().auth.conversation.reset();
  StatusWith<std::string> payload = Payload(payload_value);
  if (!payload.ok()) return Failed(ctx, *conversation, payload.status(), delay);
  StatusWith<std::string> user = conversation->scram.ReadClientFirst(payload.value());
  if (!user.ok()) return Failed(ctx, *conversation, user.status(), delay);
  conversation->user = user.value();
  if (db == "$external") {
    return Failed(ctx, *conversation,
                  Status(ErrorCode::kBadValue, "SCRAM users cannot live in $external"), delay);
  }
  StatusWith<std::optional<bson::Document>> stored =
      ReadAuthDocument(ctx, kUsersCollection, conversation->user, db);
  if (!stored.ok()) return stored.status();
  if (!stored.value().has_value()) {
    return Failed(ctx, *conversation,
                  Status(ErrorCode::kUserNotFound, "Could not find user \"" + conversation->user +
                                                       "\" for db \"" + std::string(db) + "\""),
                  delay);
  }
  std::optional<auth::ScramSecrets> secrets = SecretsOf(*stored.value(), *hash);
  if (!secrets.has_value()) {
    return Failed(ctx, *conversation,
                  Status(ErrorCode::kMechanismUnavailable,
                         "Unable to use " + std::string(mechanism_name) +
                             " based authentication for user without any " +
                             std::string(mechanism_name) + " credentials registered"),
                  delay);
  }
  std::string server_first = conversation->scram.ServerFirst(*secrets);
  conversation->step = 1;
  ctx.connection().auth.conversation = std::move(conversation);
  return SaslReply(false, server_first);
}

StatusWith<bson::Document> RunSaslStart(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string mechanism, args.RequiredString("mechanism"));
  bson::ValueView payload = args.Raw("payload");
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView options, args.OptionalDocument("options"));
  args.Ignore({"autoAuthorize"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  const bool skip = options.Get("skipEmptyExchange").Truthy();
  std::chrono::milliseconds delay(0);
  StatusWith<bson::Document> reply =
      Start(ctx, mechanism, payload, request.db, skip, /*speculative=*/false, &delay);
  if (!reply.ok()) return FailAfter(ctx, reply.status(), delay);
  return reply;
}

// Signs the user in (read again: it may have been dropped meanwhile) and answers done.
StatusWith<bson::Document> Complete(CommandContext& ctx,
                                    std::shared_ptr<SaslConversation> conversation,
                                    std::string_view last_payload) {
  ctx.connection().auth.conversation.reset();
  std::chrono::milliseconds delay(0);
  QUARRY_ASSIGN_OR_RETURN(
      std::optional<bson::Document> stored,
      ReadAuthDocument(ctx, kUsersCollection, conversation->user, conversation->db));
  if (!stored.has_value()) {
    Status gone(ErrorCode::kUserNotFound, "the user was dropped during authentication");
    return FailAfter(ctx, Failed(ctx, *conversation, gone, &delay), delay);
  }
  QUARRY_RETURN_IF_ERROR(Succeeded(ctx, *conversation, *stored));
  return SaslReply(true, last_payload);
}

StatusWith<bson::Document> RunSaslContinue(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  bson::ValueView conversation_id = args.Raw("conversationId");
  bson::ValueView payload_value = args.Raw("payload");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  std::shared_ptr<SaslConversation> conversation = ctx.connection().auth.conversation;
  if (conversation == nullptr) {
    return Status(ErrorCode::kProtocolError, "No SASL session state found");
  }
  if (!conversation_id.IsNumber() || conversation_id.AsInt64() != kConversationId) {
    return Status(ErrorCode::kProtocolError, "sasl: Mismatched conversation id");
  }
  if (conversation->db != request.db) {
    return Status(ErrorCode::kProtocolError,
                  "Attempt to switch database target during SASL authentication.");
  }
  std::chrono::milliseconds delay(0);
  StatusWith<std::string> payload = Payload(payload_value);
  if (!payload.ok()) {
    return FailAfter(ctx, Failed(ctx, *conversation, payload.status(), &delay), delay);
  }
  if (conversation->step == 1) {
    StatusWith<std::string> server_final = conversation->scram.ReadClientFinal(payload.value());
    if (!server_final.ok()) {
      return FailAfter(ctx, Failed(ctx, *conversation, server_final.status(), &delay), delay);
    }
    conversation->step = 2;
    if (conversation->skip_empty_exchange) {
      return Complete(ctx, std::move(conversation), server_final.value());
    }
    return SaslReply(false, server_final.value());
  }
  if (!payload.value().empty()) {
    Status not_empty(ErrorCode::kBadValue, "SCRAM's last client message must be empty");
    return FailAfter(ctx, Failed(ctx, *conversation, not_empty, &delay), delay);
  }
  return Complete(ctx, std::move(conversation), "");
}

StatusWith<bson::Document> RunLogout(CommandContext& ctx, const Request&) {
  SignOut(ctx);
  ctx.connection().auth.conversation.reset();
  return bson::Document();
}

}  // namespace

std::optional<bson::Document> SpeculativeAuthenticate(CommandContext& ctx,
                                                      bson::DocumentView sasl_start) {
  bson::ValueView mechanism = sasl_start.Get("mechanism");
  bson::ValueView db = sasl_start.Get("db");
  if (!sasl_start.Has("saslStart") || mechanism.type() != bson::Type::kString ||
      db.type() != bson::Type::kString) {
    return std::nullopt;  // X.509's speculative form, or malformed: authenticate normally
  }
  const bool skip = sasl_start.Get("options").type() == bson::Type::kDocument &&
                    sasl_start.Get("options").Document().Get("skipEmptyExchange").Truthy();
  std::chrono::milliseconds delay(0);
  StatusWith<bson::Document> reply = Start(ctx, mechanism.String(), sasl_start.Get("payload"),
                                           db.String(), skip, /*speculative=*/true, &delay);
  if (!reply.ok()) return std::nullopt;
  return std::move(reply).value();
}

StatusWith<std::optional<bson::Document>> SupportedMechanisms(CommandContext& ctx,
                                                              bson::ValueView user) {
  if (user.type() != bson::Type::kString) {
    return Status(ErrorCode::kBadValue, "saslSupportedMechs must be a string \"<db>.<user>\"");
  }
  std::string_view name = user.String();
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) {
    return Status(ErrorCode::kBadValue,
                  "saslSupportedMechs must be \"<db>.<user>\", not \"" + std::string(name) + "\"");
  }
  QUARRY_ASSIGN_OR_RETURN(
      std::optional<bson::Document> stored,
      ReadAuthDocument(ctx, kUsersCollection, name.substr(dot + 1), name.substr(0, dot)));
  if (!stored.has_value()) return std::optional<bson::Document>();
  bson::ArrayBuilder mechanisms;
  for (auth::ScramHash hash : {auth::ScramHash::kSha1, auth::ScramHash::kSha256}) {
    if (SecretsOf(*stored, hash).has_value()) mechanisms.AppendString(auth::MechanismName(hash));
  }
  return std::optional<bson::Document>(std::move(mechanisms).Finish());
}

void RegisterSaslCommands(CommandRegistry& registry) {
  registry.Add({.name = "saslStart",
                .flags = kAllowedOverOpQuery | kNeverCompressReply,
                .run = RunSaslStart,
                .auth = OpenToAll()});
  registry.Add({.name = "saslContinue",
                .flags = kAllowedOverOpQuery | kNeverCompressReply,
                .run = RunSaslContinue,
                .auth = OpenToAll()});
  registry.Add({.name = "logout", .run = RunLogout, .auth = OpenToAll()});
}

}  // namespace quarry::commands
