#include "commands/crud/statement_fields.h"

#include <algorithm>
#include <string>

namespace quarry::commands {

Status CheckStatementFields(const StatementFields& fields,
                            const std::vector<bson::DocumentView>& statements) {
  auto listed = [](std::initializer_list<std::string_view> names, std::string_view key) {
    return std::find(names.begin(), names.end(), key) != names.end();
  };
  for (bson::DocumentView statement : statements) {
    for (std::string_view name : fields.required) {
      if (!statement.Get(name).exists()) {
        return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(fields.path) + "." +
                                                     std::string(name) +
                                                     "' is missing but a required field");
      }
    }
    for (const bson::Element& e : statement) {
      if (!listed(fields.required, e.key) && !listed(fields.optional, e.key)) {
        return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(fields.path) + "." +
                                                     std::string(e.key) + "' is an unknown field.");
      }
    }
  }
  return Status::OK();
}

}  // namespace quarry::commands
