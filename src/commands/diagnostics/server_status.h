// The serverStatus document, built from the server's counters: the command's reply body, and
// what the HTTP /metrics endpoint renders (http/prometheus_text.h).
#pragma once

#include "bson/value.h"
#include "commands/service_state.h"

namespace quarry::commands {

// Every section serverStatus reports, without `ok`. Thread-safe; reads only counters.
bson::Document ServerStatusDocument(ServiceState& state);

}  // namespace quarry::commands
