// The field check mongod's command parser makes on every statement of an update or delete
// before any of them runs: a missing required field (40414) or an unknown one (40415) fails the
// whole command, not just its statement.
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::commands {

struct StatementFields {
  std::string_view path;  // for messages: "update.updates"
  std::initializer_list<std::string_view> required;
  std::initializer_list<std::string_view> optional;
};

Status CheckStatementFields(const StatementFields& fields,
                            const std::vector<bson::DocumentView>& statements);

}  // namespace quarry::commands
