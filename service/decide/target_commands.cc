#include "service/decide/target_commands.h"

namespace credledger::service {
namespace {

struct TargetCommandNamer {
  const char* operator()(const RegisterTarget&) const { return "RegisterTarget"; }
  const char* operator()(const DeleteTarget&) const { return "DeleteTarget"; }
  const char* operator()(const RequestRotation&) const { return "RequestRotation"; }
  const char* operator()(const Revoke&) const { return "Revoke"; }
  const char* operator()(const LiftRevocation&) const { return "LiftRevocation"; }
  const char* operator()(const ConfirmRollout&) const { return "ConfirmRollout"; }
  const char* operator()(const PlanCredential&) const { return "PlanCredential"; }
  const char* operator()(const RecordIdentityWritten&) const { return "RecordIdentityWritten"; }
  const char* operator()(const RecordStaleCredentialsDeleted&) const {
    return "RecordStaleCredentialsDeleted";
  }
  const char* operator()(const RecordSecretCreated&) const { return "RecordSecretCreated"; }
  const char* operator()(const RecordCredentialIssued&) const { return "RecordCredentialIssued"; }
  const char* operator()(const RecordMintFailed&) const { return "RecordMintFailed"; }
  const char* operator()(const RecordSecretDeleted&) const { return "RecordSecretDeleted"; }
  const char* operator()(const RecordSecretDeletedExternally&) const {
    return "RecordSecretDeletedExternally";
  }
  const char* operator()(const RecordTargetFinalized&) const { return "RecordTargetFinalized"; }
};

}  // namespace

std::string CommandName(const TargetCommand& command) { return std::visit(TargetCommandNamer{}, command); }

}  // namespace credledger::service
