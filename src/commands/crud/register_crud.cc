#include "commands/crud/crud.h"
#include "commands/register.h"

namespace quarry::commands {

void RegisterCrudCommands(CommandRegistry& registry) {
  RegisterInsertCommand(registry);
  RegisterUpdateCommand(registry);
  RegisterDeleteCommand(registry);
  RegisterFindCommand(registry);
  RegisterCountCommands(registry);
  RegisterFindAndModifyCommand(registry);
}

}  // namespace quarry::commands
