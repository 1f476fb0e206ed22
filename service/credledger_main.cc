#include "service/credledger_main.h"

#include "cli/agent_cli.h"
#include "cli/audit_cli.h"
#include "cli/backup_cli.h"
#include "cli/cluster_cli.h"
#include "cli/exec_cli.h"
#include "cli/identity_cli.h"
#include "cli/keygen_cli.h"
#include "cli/source_cli.h"
#include "cli/status_cli.h"
#include "cli/target_cli.h"
#include "service/server/server_cli.h"

namespace credledger::service {

cli::Dispatcher CredledgerDispatcher() {
  cli::Dispatcher dispatcher("credledger");
  AddServerCommands(dispatcher);
  cli::AddAgentCommands(dispatcher);
  cli::AddTargetCommands(dispatcher);
  cli::AddIdentityCommands(dispatcher);
  cli::AddClusterCommands(dispatcher);
  cli::AddSourceCommands(dispatcher);
  cli::AddStatusCommands(dispatcher);
  cli::AddAuditCommands(dispatcher);
  cli::AddBackupCommands(dispatcher);
  cli::AddKeygenCommands(dispatcher);
  cli::AddExecCommands(dispatcher);
  return dispatcher;
}

int CredledgerMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return CredledgerDispatcher().Run(args, out, err);
}

}  // namespace credledger::service
