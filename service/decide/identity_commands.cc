#include "service/decide/identity_commands.h"

namespace credledger::service {
namespace {

struct IdentityCommandNamer {
  const char* operator()(const CreateIdentity&) const { return "CreateIdentity"; }
  const char* operator()(const UpdateIdentity&) const { return "UpdateIdentity"; }
  const char* operator()(const DeleteIdentity&) const { return "DeleteIdentity"; }
  const char* operator()(const BindIdentity&) const { return "BindIdentity"; }
  const char* operator()(const UnbindIdentity&) const { return "UnbindIdentity"; }
  const char* operator()(const ApplyMirrorOutcomes&) const { return "ApplyMirrorOutcomes"; }
};

}  // namespace

std::string IdentityCommandName(const IdentityCommand& command) {
  return std::visit(IdentityCommandNamer{}, command);
}

}  // namespace credledger::service
