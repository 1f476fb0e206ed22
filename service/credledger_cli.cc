#include "service/credledger_cli.h"

#include "service/agent_cli.h"
#include "service/audit_cli.h"
#include "service/backup_cli.h"
#include "service/cluster_cli.h"
#include "service/exec_cli.h"
#include "service/identity_cli.h"
#include "service/keygen_cli.h"
#include "service/server_cli.h"
#include "service/source_cli.h"
#include "service/status_cli.h"
#include "service/target_cli.h"

namespace credledger::service {

Dispatcher CredledgerDispatcher() {
  Dispatcher dispatcher("credledger");
  AddServerCommands(dispatcher);
  AddAgentCommands(dispatcher);
  AddTargetCommands(dispatcher);
  AddIdentityCommands(dispatcher);
  AddClusterCommands(dispatcher);
  AddSourceCommands(dispatcher);
  AddStatusCommands(dispatcher);
  AddAuditCommands(dispatcher);
  AddBackupCommands(dispatcher);
  AddKeygenCommands(dispatcher);
  AddExecCommands(dispatcher);
  return dispatcher;
}

int CredledgerMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return CredledgerDispatcher().Run(args, out, err);
}

}  // namespace credledger::service
