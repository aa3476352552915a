// The registry (a short vector: lookups are a handful of string compares) and Request helpers.
#include "commands/command.h"

#include <algorithm>

namespace quarry::commands {

StatusWith<std::vector<bson::DocumentView>> Request::Documents(std::string_view field) const {
  for (const DocumentSequenceView& sequence : sequences) {
    if (sequence.identifier == field) return *sequence.documents;
  }
  std::vector<bson::DocumentView> docs;
  bson::ValueView array = body.Get(field);
  if (!array.exists()) return docs;
  if (array.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + std::string(name) + "." + std::string(field) +
                      "' is the wrong type '" + std::string(bson::TypeAlias(array.type())) +
                      "', expected type 'array'");
  }
  for (const bson::Element& e : array.Document()) {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(name) + "." +
                                                  std::string(field) + "' must contain documents");
    }
    docs.push_back(e.value.Document());
  }
  return docs;
}

void CommandRegistry::Add(Command command) { commands_.push_back(std::move(command)); }

const Command* CommandRegistry::Find(std::string_view name) const {
  for (const Command& command : commands_) {
    if (command.name == name) return &command;
    if (std::find(command.aliases.begin(), command.aliases.end(), name) != command.aliases.end()) {
      return &command;
    }
  }
  return nullptr;
}

std::vector<const Command*> CommandRegistry::All() const {
  std::vector<const Command*> all;
  for (const Command& command : commands_) all.push_back(&command);
  std::sort(all.begin(), all.end(),
            [](const Command* a, const Command* b) { return a->name < b->name; });
  return all;
}

}  // namespace quarry::commands
