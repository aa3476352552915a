#include "http/endpoints.h"

#include "commands/diagnostics/server_status.h"
#include "http/metrics.h"
#include "storage/engine.h"

namespace quarry::http {
namespace {

// Prometheus's text format, version 0.0.4.
constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

Response Text(int status, std::string body) {
  Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

Response Metrics(commands::ServiceState& state) {
  const bson::Document status = commands::ServerStatusDocument(state);
  std::optional<storage::EngineFigures> figures;
  if (state.engine != nullptr) figures = state.engine->Figures();
  Response response = Text(200, RenderMetrics(status.view(), figures ? &*figures : nullptr));
  response.content_type = kMetricsContentType;
  return response;
}

// Healthy while the storage engine is open and the server takes requests: a stop begun means
// a load balancer should look elsewhere.
Response Health(bool stopping, const commands::ServiceState& state) {
  if (stopping || state.engine == nullptr) {
    return Text(503, stopping ? "shutting down\n" : "storage is not open\n");
  }
  return Text(200, "ok\n");
}

}  // namespace

Response Serve(std::string_view method, std::string_view target, bool stopping,
               commands::ServiceState& state) {
  const std::string_view path = target.substr(0, target.find('?'));
  const bool known = path == "/metrics" || path == "/healthz";
  if (!known) return Text(404, "not found: /metrics and /healthz are served\n");
  if (method != "GET") {
    Response response = Text(405, "method not allowed\n");
    response.allow = "GET";
    return response;
  }
  return path == "/metrics" ? Metrics(state) : Health(stopping, state);
}

}  // namespace quarry::http
