// The one list of command families.
#include "commands/register.h"

namespace quarry::commands {

void RegisterAllCommands(CommandRegistry& registry) {
  RegisterHandshakeCommands(registry);
  RegisterDiagnosticCommands(registry);
  RegisterServerStatusCommand(registry);
  RegisterCurrentOpCommands(registry);
  RegisterStatsCommands(registry);
  RegisterSessionCommands(registry);
  RegisterTransactionCommands(registry);
  RegisterGetLastErrorCommand(registry);
  RegisterCrudCommands(registry);
  RegisterCursorCommands(registry);
  RegisterDdlCommands(registry);
  RegisterCollModCommand(registry);
  RegisterCappedCopyCommands(registry);
  RegisterIndexCommands(registry);
  RegisterPlanCacheCommands(registry);
  RegisterAggregateCommands(registry);
  RegisterSearchIndexCommands(registry);
  RegisterExplainCommand(registry);
  RegisterValidateCommand(registry);
  RegisterMaintenanceCommands(registry);
  RegisterDataSizeCommand(registry);
  RegisterTopCommand(registry);
  RegisterBackupCommands(registry);
  RegisterReplicationCommands(registry);
  RegisterParameterCommands(registry);
  RegisterProfileCommand(registry);
  RegisterServerControlCommands(registry);
  RegisterSaslCommands(registry);
  RegisterConnectionStatusCommand(registry);
  RegisterUserCommands(registry);
  RegisterRoleCommands(registry);
}

}  // namespace quarry::commands
