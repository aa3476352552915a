// profile: reads and sets a database's profiling level (its system.profile records operations
// slower than slowms at level 1, every operation at level 2) and slowms, which is also the
// threshold of the "Slow query" log.
#include <atomic>
#include <string>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/diagnostics/profiler.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunProfile(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  bson::ValueView level = request.body.Get(request.name);
  bson::ValueView slow_ms = args.Raw("slowms");
  bson::ValueView sample_rate = args.Raw("sampleRate");
  bson::ValueView filter = args.Raw("filter");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (!level.IsNumber()) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'profile.profile' is the wrong type '" +
                                                std::string(bson::TypeAlias(level.type())) +
                                                "', expected type 'int'");
  }
  const std::int64_t new_level = level.AsInt64();
  if (new_level < -1 || new_level > 2) {
    return Status(ErrorCode::kBadValue, "Invalid profiling level: " + std::to_string(new_level));
  }
  if (slow_ms.exists() && !slow_ms.IsNumber()) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'profile.slowms' is the wrong type '" +
                                                std::string(bson::TypeAlias(slow_ms.type())) +
                                                "', expected type 'long'");
  }
  if (sample_rate.exists()) {
    if (!sample_rate.IsNumber() || sample_rate.AsDouble() < 0 || sample_rate.AsDouble() > 1) {
      return Status(ErrorCode::kBadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive");
    }
    if (sample_rate.AsDouble() != 1) {
      return Status(ErrorCode::kCommandNotSupported,
                    "a sampleRate other than 1.0 is not supported: every slow operation is "
                    "profiled and logged");
    }
  }
  if (filter.exists()) {
    return Status(ErrorCode::kCommandNotSupported,
                  "profile's 'filter' is not supported: level 1 records the operations slower "
                  "than slowms");
  }
  std::atomic<std::int64_t>& threshold = ctx.service().parameters.slow_ms;
  bson::DocumentBuilder b;
  const int was = new_level < 0
                      ? GlobalProfiler().Level(request.db)
                      : GlobalProfiler().SetLevel(request.db, static_cast<int>(new_level));
  b.AppendInt32("was", was);
  b.AppendInt32("slowms", static_cast<std::int32_t>(threshold.load()));
  b.AppendDouble("sampleRate", 1.0);
  if (slow_ms.exists()) threshold = slow_ms.AsInt64();
  return std::move(b).Finish();
}

}  // namespace

void RegisterProfileCommand(CommandRegistry& registry) {
  registry.Add({.name = "profile",
                .run = RunProfile,
                .auth = OnDatabase({auth::ActionType::kEnableProfiler})});
}

}  // namespace quarry::commands
