// One registration function per command family, called from RegisterAllCommands. Explicit
// calls, no static initialisers, so a test can build a registry with just what it needs.
#pragma once

#include "commands/command.h"

namespace quarry::commands {

void RegisterHandshakeCommands(CommandRegistry& registry);
void RegisterDiagnosticCommands(CommandRegistry& registry);
void RegisterServerStatusCommand(CommandRegistry& registry);
void RegisterCurrentOpCommands(CommandRegistry& registry);
void RegisterStatsCommands(CommandRegistry& registry);
void RegisterSessionCommands(CommandRegistry& registry);
void RegisterTransactionCommands(CommandRegistry& registry);
void RegisterCrudCommands(CommandRegistry& registry);
void RegisterGetLastErrorCommand(CommandRegistry& registry);
void RegisterCursorCommands(CommandRegistry& registry);
void RegisterDdlCommands(CommandRegistry& registry);
void RegisterCollModCommand(CommandRegistry& registry);
void RegisterCappedCopyCommands(CommandRegistry& registry);
void RegisterIndexCommands(CommandRegistry& registry);
void RegisterCreateIndexesCommand(CommandRegistry& registry);
void RegisterPlanCacheCommands(CommandRegistry& registry);
void RegisterExplainCommand(CommandRegistry& registry);
void RegisterValidateCommand(CommandRegistry& registry);
void RegisterMaintenanceCommands(CommandRegistry& registry);
void RegisterDataSizeCommand(CommandRegistry& registry);
void RegisterTopCommand(CommandRegistry& registry);
void RegisterReplicationCommands(CommandRegistry& registry);
void RegisterParameterCommands(CommandRegistry& registry);
void RegisterProfileCommand(CommandRegistry& registry);
void RegisterServerControlCommands(CommandRegistry& registry);
void RegisterAggregateCommands(CommandRegistry& registry);
void RegisterSearchIndexCommands(CommandRegistry& registry);
void RegisterBackupCommands(CommandRegistry& registry);

// Test hooks (configureFailPoint): only with --enableTestCommands.
void RegisterSaslCommands(CommandRegistry& registry);
void RegisterConnectionStatusCommand(CommandRegistry& registry);
void RegisterUserCommands(CommandRegistry& registry);
void RegisterRoleCommands(CommandRegistry& registry);
void RegisterTestCommands(CommandRegistry& registry);

void RegisterAllCommands(CommandRegistry& registry);

}  // namespace quarry::commands
