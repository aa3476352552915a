#include "commands/service_state.h"

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

}  // namespace quarry::commands
