// getParameter and setParameter over one table of the parameters Quarry has, each with its real
// value; those setParameter may change at runtime change what they tune.
#include <string>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

constexpr std::string_view kHelpSuffix = ", use help:true to see options ";

struct Parameter {
  std::string_view name;
  // Appends the value under `name`.
  void (*append)(const ServiceState& service, std::string_view name, bson::DocumentBuilder* b);
  // Sets it from `value`; null for a parameter fixed at start-up.
  Status (*set)(ServiceState& service, bson::ValueView value) = nullptr;
};

Status SetTtlMonitorSleepSecs(ServiceState& service, bson::ValueView value) {
  if (!value.IsNumber() || !value.IsIntegral() || value.AsInt64() < 1 ||
      value.AsInt64() > 1000000) {
    return Status(ErrorCode::kBadValue,
                  "Invalid value for ttlMonitorSleepSecs: " + value.ToJson() +
                      ": it must be a whole number of seconds from 1 to 1000000");
  }
  service.parameters.ttl_monitor_sleep_secs = value.AsInt64();
  return Status::OK();
}

Status SetTtlMonitorEnabled(ServiceState& service, bson::ValueView value) {
  if (value.type() != bson::Type::kBool) {
    return Status(ErrorCode::kBadValue,
                  "Invalid value for ttlMonitorEnabled: " + value.ToJson() + ": it must be a bool");
  }
  service.parameters.ttl_monitor_enabled = value.Bool();
  return Status::OK();
}

Status SetTransactionLifetimeLimitSeconds(ServiceState& service, bson::ValueView value) {
  if (!value.IsNumber() || !value.IsIntegral() || value.AsInt64() < 1 ||
      value.AsInt64() > 2147483647) {
    return Status(ErrorCode::kBadValue,
                  "Invalid value for transactionLifetimeLimitSeconds: " + value.ToJson() +
                      ": it must be a whole number of seconds, at least 1");
  }
  service.parameters.transaction_lifetime_limit_seconds = value.AsInt64();
  return Status::OK();
}

// The values as mongod 7.0 names them; where Quarry's behaviour is fixed, its real value.
const Parameter kParameters[] = {
    {"authenticationMechanisms", [](const ServiceState&, std::string_view name,
                                    bson::DocumentBuilder* b) { b->OpenArray(name).Close(); }},
    {"cursorTimeoutMillis", [](const ServiceState&, std::string_view name,
                               bson::DocumentBuilder* b) { b->AppendInt64(name, 600000); }},
    {"enableTestCommands",
     [](const ServiceState& service, std::string_view name, bson::DocumentBuilder* b) {
       b->AppendBool(name, service.config.enable_test_commands);
     }},
    {"featureCompatibilityVersion",
     [](const ServiceState&, std::string_view name, bson::DocumentBuilder* b) {
       b->OpenDocument(name).AppendString("version", "7.0").Close();
     }},
    {"internalDocumentSourceGroupMaxMemoryBytes",
     [](const ServiceState& service, std::string_view name, bson::DocumentBuilder* b) {
       b->AppendInt64(name, static_cast<std::int64_t>(service.config.max_group_bytes));
     }},
    {"internalQueryMaxBlockingSortMemoryUsageBytes",
     [](const ServiceState& service, std::string_view name, bson::DocumentBuilder* b) {
       b->AppendInt64(name, static_cast<std::int64_t>(service.config.max_blocking_sort_bytes));
     }},
    {"maxBSONDepth", [](const ServiceState&, std::string_view name,
                        bson::DocumentBuilder* b) { b->AppendInt32(name, 200); }},
    {"minSnapshotHistoryWindowInSeconds",
     [](const ServiceState& service, std::string_view name, bson::DocumentBuilder* b) {
       b->AppendInt32(name, static_cast<std::int32_t>(service.config.snapshot_history_seconds));
     }},
    {"requireApiVersion", [](const ServiceState&, std::string_view name,
                             bson::DocumentBuilder* b) { b->AppendBool(name, false); }},
    {"transactionLifetimeLimitSeconds",
     [](const ServiceState& service, std::string_view name, bson::DocumentBuilder* b) {
       b->AppendInt32(name, static_cast<std::int32_t>(
                                service.parameters.transaction_lifetime_limit_seconds.load()));
     },
     SetTransactionLifetimeLimitSeconds},
    {"ttlMonitorEnabled",
     [](const ServiceState& service, std::string_view name, bson::DocumentBuilder* b) {
       b->AppendBool(name, service.parameters.ttl_monitor_enabled.load());
     },
     SetTtlMonitorEnabled},
    {"ttlMonitorSleepSecs",
     [](const ServiceState& service, std::string_view name, bson::DocumentBuilder* b) {
       b->AppendInt32(name,
                      static_cast<std::int32_t>(service.parameters.ttl_monitor_sleep_secs.load()));
     },
     SetTtlMonitorSleepSecs},
};

const Parameter* FindParameter(std::string_view name) {
  for (const Parameter& p : kParameters) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// showDetails: {value, settableAtRuntime, settableAtStartup} instead of the bare value.
void AppendParameter(const ServiceState& service, const Parameter& p, bool details,
                     bson::DocumentBuilder* b) {
  if (!details) {
    p.append(service, p.name, b);
    return;
  }
  b->OpenDocument(p.name);
  p.append(service, "value", b);
  b->AppendBool("settableAtRuntime", p.set != nullptr);
  b->AppendBool("settableAtStartup", true);
  b->Close();
}

StatusWith<bson::Document> RunGetParameter(CommandContext& ctx, const Request& request) {
  bson::ValueView arg = request.body.Get(request.name);
  bool details = false;
  bool all = arg.type() == bson::Type::kString && arg.String() == "*";
  if (arg.type() == bson::Type::kDocument) {
    for (const bson::Element& e : arg.Document()) {
      if (e.key == "showDetails") {
        details = e.value.Truthy();
      } else if (e.key == "allParameters") {
        all = e.value.Truthy();
      } else {
        return Status(ErrorCode::kLocation40415,
                      "BSON field 'getParameter." + std::string(e.key) + "' is an unknown field.");
      }
    }
  }
  bson::DocumentBuilder b;
  if (all) {
    for (const Parameter& p : kParameters) AppendParameter(ctx.service(), p, details, &b);
    return std::move(b).Finish();
  }
  bool any = false;
  for (const bson::Element& e : request.body) {
    if (e.key == request.name || IsGenericArgument(e.key)) continue;
    if (const Parameter* p = FindParameter(e.key)) {
      AppendParameter(ctx.service(), *p, details, &b);
      any = true;
    }
  }
  if (!any) return Status(ErrorCode::kInvalidOptions, "no option found to get");
  return std::move(b).Finish();
}

// mongod checks every named parameter before it sets any, and answers with the first one's
// previous value.
StatusWith<bson::Document> RunSetParameter(CommandContext& ctx, const Request& request) {
  std::vector<std::pair<const Parameter*, bson::ValueView>> changes;
  for (const bson::Element& e : request.body) {
    if (e.key == request.name || IsGenericArgument(e.key)) continue;
    const Parameter* p = FindParameter(e.key);
    if (p == nullptr) {
      return Status(ErrorCode::kInvalidOptions, "attempted to set unrecognized parameter [" +
                                                    std::string(e.key) + "]" +
                                                    std::string(kHelpSuffix));
    }
    if (p->set == nullptr) {
      return Status(ErrorCode::kIllegalOperation,
                    "not allowed to change [" + std::string(e.key) + "] at runtime");
    }
    for (const auto& change : changes) {
      if (change.first == p) {
        return Status(ErrorCode::kBadValue, "attempted to set parameter [" + std::string(e.key) +
                                                "] twice in the same setParameter command");
      }
    }
    changes.emplace_back(p, e.value);
  }
  if (changes.empty()) {
    return Status(ErrorCode::kInvalidOptions, "no option found to set" + std::string(kHelpSuffix));
  }
  bson::DocumentBuilder was;
  changes.front().first->append(ctx.service(), "was", &was);
  for (const auto& [parameter, value] : changes) {
    QUARRY_RETURN_IF_ERROR(parameter->set(ctx.service(), value));
  }
  return std::move(was).Finish();
}

}  // namespace

void RegisterParameterCommands(CommandRegistry& registry) {
  registry.Add({.name = "getParameter",
                .flags = kAdminOnly,
                .run = RunGetParameter,
                .auth = OnCluster({auth::ActionType::kGetParameter})});
  registry.Add({.name = "setParameter",
                .flags = kAdminOnly,
                .run = RunSetParameter,
                .auth = OnCluster({auth::ActionType::kSetParameter})});
}

}  // namespace quarry::commands
