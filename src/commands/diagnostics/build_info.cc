// ping, buildInfo, getCmdLineOpts, hostInfo, whatsmyuri,
// getLog, listCommands: what shells and drivers ask while connecting.
#include <sys/utsname.h>
#include <unistd.h>

#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "bson/builder.h"
#include "bson/json.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunPing(CommandContext&, const Request&) { return bson::Document(); }

StatusWith<bson::Document> RunBuildInfo(CommandContext&, const Request&) {
  bson::DocumentBuilder b;
  b.AppendString("version", kMongoVersion);
  b.AppendString("gitVersion", "quarry-0.1.0");
  b.OpenArray("versionArray")
      .AppendInt32("0", 7)
      .AppendInt32("1", 0)
      .AppendInt32("2", 0)
      .AppendInt32("3", 0)
      .Close();
  b.OpenArray("modules").Close();
  b.AppendString("allocator", "system");
  b.AppendString("javascriptEngine", "none");
  b.AppendString("sysInfo", "deprecated");
  b.OpenArray("storageEngines").AppendString("0", "rocksdb").Close();
  b.AppendInt32("bits", 64);
  b.AppendBool("debug", false);
  b.AppendInt32("maxBsonObjectSize", 16 * 1024 * 1024);
  b.OpenDocument("buildEnvironment")
      .AppendString("target_os", "linux")
      .AppendString("target_arch", "x86_64")
      .AppendString("distmod", "quarry")
      .Close();
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunGetCmdLineOpts(CommandContext& ctx, const Request&) {
  bson::DocumentBuilder b;
  b.OpenArray("argv");
  const auto& argv = ctx.service().config.argv;
  for (std::size_t i = 0; i < argv.size(); ++i) b.AppendString(std::to_string(i), argv[i]);
  b.Close();
  b.AppendDocument("parsed", ctx.service().config.parsed_options);
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunHostInfo(CommandContext& ctx, const Request&) {
  utsname uts{};
  uname(&uts);
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  std::int64_t mem_mb = static_cast<std::int64_t>(pages) * page_size / (1024 * 1024);
  bson::DocumentBuilder b;
  b.OpenDocument("system")
      .AppendDate("currentTime", NowMillis())
      .AppendString("hostname", ctx.service().host_name)
      .AppendInt32("cpuAddrSize", 64)
      .AppendInt64("memSizeMB", mem_mb)
      .AppendInt64("memLimitMB", mem_mb)
      .AppendInt32("numCores", static_cast<std::int32_t>(std::thread::hardware_concurrency()))
      .AppendString("cpuArch", uts.machine)
      .AppendBool("numaEnabled", false)
      .Close();
  b.OpenDocument("os")
      .AppendString("type", uts.sysname)
      .AppendString("name", uts.sysname)
      .AppendString("version", uts.release)
      .Close();
  b.OpenDocument("extra").AppendString("versionString", uts.version).Close();
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunWhatsMyUri(CommandContext& ctx, const Request&) {
  bson::DocumentBuilder b;
  b.AppendString("you", ctx.connection().remote);
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunGetLog(CommandContext&, const Request& request) {
  bson::ValueView arg = request.body.Get(request.name);
  if (arg.type() != bson::Type::kString) {
    return Status(ErrorCode::kTypeMismatch, "Argument to getLog must be of type String");
  }
  bson::DocumentBuilder b;
  if (arg.String() == "*") {
    b.OpenArray("names").AppendString("0", "global").AppendString("1", "startupWarnings").Close();
    return std::move(b).Finish();
  }
  if (arg.String() != "global" && arg.String() != "startupWarnings") {
    return Status(ErrorCode::kOperationFailed, "No log named '" + std::string(arg.String()) + "'");
  }
  std::vector<std::string> lines = log::RecentLines(arg.String());
  b.AppendInt64("totalLinesWritten", static_cast<std::int64_t>(lines.size()));
  b.OpenArray("log");
  for (std::size_t i = 0; i < lines.size(); ++i) b.AppendString(std::to_string(i), lines[i]);
  b.Close();
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunListCommands(CommandContext& ctx, const Request&) {
  bson::DocumentBuilder b;
  b.OpenDocument("commands");
  for (const Command* command : ctx.service().registry->All()) {
    b.OpenDocument(command->name)
        .AppendBool("adminOnly", (command->flags & kAdminOnly) != 0)
        .AppendString("help", "")
        .Close();
  }
  b.Close();
  return std::move(b).Finish();
}

}  // namespace

void RegisterDiagnosticCommands(CommandRegistry& registry) {
  registry.Add({.name = "ping", .flags = kAllowedOverOpQuery, .run = RunPing, .auth = OpenToAll()});
  registry.Add({.name = "buildInfo",
                .flags = kAllowedOverOpQuery,
                .run = RunBuildInfo,
                .aliases = {"buildinfo"},
                .auth = OpenToAll()});
  registry.Add({.name = "getCmdLineOpts",
                .flags = kAdminOnly,
                .run = RunGetCmdLineOpts,
                .auth = OnCluster({auth::ActionType::kGetCmdLineOpts})});
  registry.Add(
      {.name = "hostInfo", .run = RunHostInfo, .auth = OnCluster({auth::ActionType::kHostInfo})});
  registry.Add({.name = "whatsmyuri", .run = RunWhatsMyUri, .auth = OpenToAll()});
  registry.Add({.name = "getLog",
                .flags = kAdminOnly,
                .run = RunGetLog,
                .auth = OnCluster({auth::ActionType::kGetLog})});
  registry.Add({.name = "listCommands", .run = RunListCommands, .auth = OpenToAll()});
}

}  // namespace quarry::commands
