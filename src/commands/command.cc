// The registry (commands by name and alias) and Request helpers.
#include "commands/command.h"

#include <algorithm>

#include "commands/command_context.h"
#include "exec/operation_work.h"

namespace quarry::commands {

StatusWith<bson::Document> RunCommand(const Command& command, CommandContext& ctx,
                                      const Request& request) {
  exec::OperationWork& work = exec::ThisThreadWork();
  work = exec::OperationWork();
  StatusWith<bson::Document> result = command.run(ctx, request);
  OperationStats& stats = ctx.stats();
  stats.keys_examined += work.keys_examined;
  stats.docs_examined += work.docs_examined;
  stats.write_conflicts += work.write_conflicts;
  stats.has_sort_stage = stats.has_sort_stage || work.has_sort_stage;
  if (!work.plan_summary.empty()) stats.plan_summary = std::move(work.plan_summary);
  return result;
}

StatusWith<std::vector<bson::DocumentView>> Request::Documents(std::string_view field) const {
  for (const DocumentSequenceView& sequence : sequences) {
    if (sequence.identifier == field) return *sequence.documents;
  }
  std::vector<bson::DocumentView> docs;
  bson::ValueView array = body.Get(field);
  if (!array.exists()) return docs;
  if (array.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(name) + "." +
                                                std::string(field) + "' is the wrong type '" +
                                                std::string(bson::TypeAlias(array.type())) +
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

void CommandRegistry::Add(Command command) {
  auto entry = std::make_unique<Entry>();
  entry->command = std::move(command);
  by_name_[entry->command.name] = entry.get();
  counters_[&entry->command] = entry->counters.get();
  for (std::string_view alias : entry->command.aliases) by_name_[alias] = entry.get();
  entries_.push_back(std::move(entry));
}

const Command* CommandRegistry::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second->command;
}

std::vector<const Command*> CommandRegistry::All() const {
  std::vector<const Command*> all;
  for (const auto& entry : entries_) all.push_back(&entry->command);
  std::sort(all.begin(), all.end(),
            [](const Command* a, const Command* b) { return a->name < b->name; });
  return all;
}

CommandCounters& CommandRegistry::counters(const Command* command) const {
  return *counters_.at(command);
}

Status CommandRegistry::CheckDeclarations() const {
  using Scope = Authorization::Scope;
  std::string undeclared;
  for (const auto& entry : entries_) {
    const Authorization& auth = entry->command.auth;
    const bool needs_actions = auth.scope == Scope::kNamespace || auth.scope == Scope::kDatabase ||
                               auth.scope == Scope::kCluster;
    if (auth.scope == Scope::kUndeclared || (needs_actions && auth.actions.empty()) ||
        (auth.scope == Scope::kCustom && auth.check == nullptr)) {
      if (!undeclared.empty()) undeclared += ", ";
      undeclared += entry->command.name;
    }
  }
  if (undeclared.empty()) return Status::OK();
  return Status(ErrorCode::kInternalError,
                "commands registered without an authorization requirement: " + undeclared);
}

}  // namespace quarry::commands
