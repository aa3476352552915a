// One connection's SCRAM conversation between saslStart and the last saslContinue.
#pragma once

#include <string>

#include "auth/scram.h"

namespace quarry::commands {

class SaslConversation {
 public:
  explicit SaslConversation(auth::ScramHash hash) : scram(hash) {}

  auth::ScramServer scram;
  std::string user;
  std::string db;
  int step = 0;  // 1: server-first sent; 2: server-final sent, waiting for the empty message
  bool skip_empty_exchange = false;
  bool speculative = false;
};

}  // namespace quarry::commands
