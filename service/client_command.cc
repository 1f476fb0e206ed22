#include "service/client_command.h"


#include "absl/time/time.h"
#include "common/terminal_text.h"
#include "service/target_api.h"
#include "service/target_printer.h"
#include "service/uuid.h"

namespace credledger::service {
namespace {

// Deadline of one unary call.
constexpr absl::Duration kCallTimeout = absl::Seconds(30);

}  // namespace

absl::StatusOr<std::string> RequestIdOrNew(const std::string& given, std::ostream& err) {
  if (!given.empty()) return given;
  absl::StatusOr<std::string> generated = NewUuidV4();
  if (generated.ok()) err << "request-id: " << *generated << "\n";
  return generated;
}

bool SplitTarget(const std::string& arg, std::string* target_namespace, std::string* name) {
  const size_t slash = arg.find('/');
  if (slash == std::string::npos || arg.find('/', slash + 1) != std::string::npos) return false;
  *target_namespace = arg.substr(0, slash);
  *name = arg.substr(slash + 1);
  return true;
}

int BadTarget(const std::string& arg, std::ostream& err) {
  err << "error: expected " << kTargetArg << ", got \"" << arg << "\"\n";
  return kExitUsage;
}

void ClientCommand::DefineFlags(FlagSet& flags) {
  connection_.DefineFlags(flags);
  flags.AddChoice("output", &output_, {"text", "json"}, "output format");
  DefineOwnFlags(flags);
}

absl::Status ClientCommand::CheckFlags() const { return connection_.CheckFlags(); }

std::string ClientCommand::Prepare(grpc::ClientContext& context, bool unary) const {
  if (unary) context.set_deadline(absl::ToChronoTime(absl::Now() + kCallTimeout));
  return connection_.Declare(context);
}

int ClientCommand::Print(const google::protobuf::Message& message, const std::string& text,
                         std::ostream& out, std::ostream& err) const {
  if (output_ != "json") {
    out << common::TerminalSafe(text);
    return kExitOk;
  }
  absl::StatusOr<std::string> encoded = ToJson(message);
  if (!encoded.ok()) return ReportError(encoded.status(), err);
  out << *encoded << "\n";
  return kExitOk;
}

}  // namespace credledger::service
