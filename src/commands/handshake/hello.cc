// hello / isMaster / ismaster: Quarry presents itself as the primary of a one-member replica
// set (docs/DESIGN.md, Topology), and negotiates wire compression (OP_COMPRESSED spec).
#include <algorithm>
#include <chrono>

#include "base/clock.h"
#include "bson/builder.h"
#include "commands/auth/sasl.h"
#include "commands/command_context.h"
#include "commands/register.h"

namespace quarry::commands {
namespace {

constexpr std::int32_t kMaxBsonObjectSize = 16 * 1024 * 1024;
constexpr std::int32_t kMaxMessageSizeBytes = 48000000;
constexpr std::int32_t kMaxWriteBatchSize = 100000;

// Intersects the client's `compression` list with the enabled compressors, in client order.
std::vector<std::string> Negotiate(bson::ValueView offered,
                                   const std::vector<std::string>& enabled) {
  std::vector<std::string> agreed;
  if (offered.type() != bson::Type::kArray) return agreed;
  for (const bson::Element& e : offered.Document()) {
    if (e.value.type() != bson::Type::kString) continue;
    std::string name(e.value.String());
    if (std::find(enabled.begin(), enabled.end(), name) != enabled.end() &&
        std::find(agreed.begin(), agreed.end(), name) == agreed.end()) {
      agreed.push_back(name);
    }
  }
  return agreed;
}

StatusWith<bson::Document> RunHello(CommandContext& ctx, const Request& request) {
  const ServiceState& service = ctx.service();
  ConnectionState& connection = ctx.connection();
  bson::ValueView compression = request.body.Get("compression");
  if (compression.exists())
    connection.compressors = Negotiate(compression, service.config.compressors);
  connection.handshake_done = true;
  bson::ValueView client = request.body.Get("client");
  if (client.type() == bson::Type::kDocument) {
    ctx.service().operations.SetClientMetadata(connection.id,
                                               bson::Document::Copy(client.Document()));
    bson::ValueView app = client.Document().Get("application");
    if (app.type() == bson::Type::kDocument &&
        app.Document().Get("name").type() == bson::Type::kString) {
      connection.app_name = std::string(app.Document().Get("name").String());
    }
  }

  bool legacy = request.name != "hello";
  bson::ValueView hello_ok = request.body.Get("helloOk");
  bool replica_set = !service.config.repl_set.empty();
  std::string address = service.AdvertisedAddress();

  bson::DocumentBuilder b;
  if (hello_ok.exists() && hello_ok.Truthy()) b.AppendBool("helloOk", true);
  b.AppendBool(legacy ? "ismaster" : "isWritablePrimary", true);
  if (replica_set) {
    b.OpenArray("hosts").AppendString("0", address).Close();
    b.AppendString("setName", service.config.repl_set);
    b.AppendInt32("setVersion", 1);
    b.AppendBool("secondary", false);
    b.AppendString("primary", address);
    b.AppendString("me", address);
    b.AppendObjectId("electionId", service.election_id);
  }
  b.AppendInt32("maxBsonObjectSize", kMaxBsonObjectSize);
  b.AppendInt32("maxMessageSizeBytes", kMaxMessageSizeBytes);
  b.AppendInt32("maxWriteBatchSize", kMaxWriteBatchSize);
  b.AppendDate("localTime", NowMillis());
  b.AppendInt32("logicalSessionTimeoutMinutes", 30);
  b.AppendInt64("connectionId", connection.id);
  b.AppendInt32("minWireVersion", 0);
  b.AppendInt32("maxWireVersion", kMaxWireVersion);
  b.AppendBool("readOnly", false);
  bson::ValueView mechs_for = request.body.Get("saslSupportedMechs");
  if (mechs_for.exists()) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> mechanisms,
                            SupportedMechanisms(ctx, mechs_for));
    if (mechanisms.has_value()) b.AppendArray("saslSupportedMechs", *mechanisms);
  }
  bson::ValueView speculative = request.body.Get("speculativeAuthenticate");
  if (speculative.type() == bson::Type::kDocument) {
    std::optional<bson::Document> answer = SpeculativeAuthenticate(ctx, speculative.Document());
    if (answer.has_value()) b.AppendDocument("speculativeAuthenticate", *answer);
  }
  if (!connection.compressors.empty()) {
    b.OpenArray("compression");
    for (std::size_t i = 0; i < connection.compressors.size(); ++i) {
      b.AppendString(std::to_string(i), connection.compressors[i]);
    }
    b.Close();
  }
  return std::move(b).Finish();
}

}  // namespace

void RegisterHandshakeCommands(CommandRegistry& registry) {
  registry.Add({.name = "hello",
                .flags = kAllowedOverOpQuery | kNeverCompressReply,
                .run = RunHello,
                .aliases = {"isMaster", "ismaster"},
                .auth = OpenToAll()});
}

}  // namespace quarry::commands
