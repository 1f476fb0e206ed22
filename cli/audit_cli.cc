#include "cli/audit_cli.h"

#include "cli/export_cli.h"
#include "cli/forensic_cli.h"
#include "cli/verify_cli.h"

namespace credledger::cli {

void AddAuditCommands(Dispatcher& d) {
  AddExportCommand(d);
  AddVerifyCommand(d);
  AddForensicCommands(d);
}

}  // namespace credledger::cli
