#include "commands/service_state.h"

#include "catalog/catalog.h"
#include "storage/engine.h"

namespace quarry::commands {

std::string ServiceState::AdvertisedAddress() const {
  if (!config.advertise_host.empty()) {
    // --advertise-host may carry its own port.
    if (config.advertise_host.find(':') != std::string::npos &&
        config.advertise_host.front() != '[') {
      return config.advertise_host;
    }
    return config.advertise_host + ":" + std::to_string(config.port);
  }
  return "localhost:" + std::to_string(config.port);
}

bool ServiceState::TransactionsMayBlockWrites() const {
  return (engine != nullptr && engine->pipeline().transactions_hold_records()) ||
         (catalog != nullptr && catalog->transactions_create_collections());
}

}  // namespace quarry::commands
