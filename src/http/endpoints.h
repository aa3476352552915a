// What the HTTP listener serves: GET /metrics (Prometheus text) and GET /healthz; any other
// path is 404 and any other method 405. net/ carries the bytes; this decides the answers.
#pragma once

#include <string>
#include <string_view>

#include "commands/service_state.h"

namespace quarry::http {

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string allow;  // the Allow header of a 405
  std::string body;
};

// `stopping`: a graceful stop has begun (then /healthz answers 503). Quick: reads counters and
// RocksDB properties, no I/O.
Response Serve(std::string_view method, std::string_view target, bool stopping,
               commands::ServiceState& state);

}  // namespace quarry::http
