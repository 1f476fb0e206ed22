#include "cli/client_command.h"

#include <algorithm>

#include "absl/time/time.h"
#include "cli/target_printer.h"
#include "common/quote_cut.h"
#include "common/terminal_text.h"
#include "common/uuid.h"
#include "service/decide/validation.h"

namespace credledger::cli {
namespace {

// Deadline of one unary call.
constexpr absl::Duration kCallTimeout = absl::Seconds(30);

}  // namespace

int CheckRequestIdFlag(bool given, const std::string& value, std::ostream& err) {
  if (!given) return kExitOk;
  if (value.empty()) {
    return ReportUsageError("--request-id is given but empty; leave it out to have one generated",
                            err);
  }
  const absl::Status valid =
      service::ValidateClientRequestId("--request-id", value, service::kMaxRequestIdBytes);
  return valid.ok() ? kExitOk : ReportUsageError(valid.message(), err);
}

absl::StatusOr<std::string> RequestIdOrNew(const std::string& given, std::ostream& err) {
  if (!given.empty()) return given;
  absl::StatusOr<std::string> generated = common::NewUuidV4();
  if (generated.ok()) err << "request-id: " << *generated << "\n";
  return generated;
}

bool SplitTarget(const std::string& arg, std::string* target_namespace, std::string* name) {
  const size_t slash = arg.find('/');
  if (slash == std::string::npos || arg.find('/', slash + 1) != std::string::npos || slash == 0 ||
      slash + 1 == arg.size()) {
    return false;
  }
  *target_namespace = arg.substr(0, slash);
  *name = arg.substr(slash + 1);
  return true;
}

int BadTarget(const std::string& arg, std::ostream& err) {
  // Longest part of the argument quoted: two DNS labels and the slash, with room to spare.
  constexpr size_t kMaxShownTargetBytes = 160;
  const bool one_slash = std::count(arg.begin(), arg.end(), '/') == 1;
  err << "error: expected " << kTargetArg << ", got " << common::QuoteCut(arg, kMaxShownTargetBytes)
      << (one_slash ? " (neither part may be empty)" : "") << "\n";
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

}  // namespace credledger::cli
