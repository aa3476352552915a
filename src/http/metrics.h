// /metrics: the serverStatus document and RocksDB's figures as Prometheus metrics, each named
// quarry_<what>, counters ending in _total.
#pragma once

#include <string>

#include "bson/value.h"
#include "storage/engine.h"

namespace quarry::http {

// `figures` may be null (no storage engine): its metrics are left out.
std::string RenderMetrics(bson::DocumentView server_status, const storage::EngineFigures* figures);

}  // namespace quarry::http
