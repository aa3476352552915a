// The CRUD family's commands, registered together by RegisterCrudCommands.
#pragma once

#include "commands/command.h"

namespace quarry::commands {

void RegisterInsertCommand(CommandRegistry& registry);
void RegisterUpdateCommand(CommandRegistry& registry);
void RegisterDeleteCommand(CommandRegistry& registry);
void RegisterFindCommand(CommandRegistry& registry);
void RegisterCountCommands(CommandRegistry& registry);
void RegisterFindAndModifyCommand(CommandRegistry& registry);

}  // namespace quarry::commands
