#include "service/wire/grpc_log.h"

#include <grpc/support/log.h>

#include <atomic>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace credledger::service {
namespace {

// The handshake RepeatLog of the installed function; set once, before the function is
// installed, and never destroyed.
std::atomic<common::RepeatLog*> installed_handshakes{nullptr};

void InstalledLogFunction(gpr_log_func_args* args) {
  RouteGrpcLog(static_cast<int>(args->severity), args->file == nullptr ? "" : args->file,
               args->line, args->message == nullptr ? "" : args->message,
               *installed_handshakes.load(std::memory_order_acquire));
}

// Whether gRPC's `message` from `file` reports a failed TLS handshake: "Handshake failed
// with fatal error ..." from ssl_transport_security.cc (at error), "Security handshake
// failed: ..." from security_handshaker.cc (at debug).
bool IsFailedHandshake(absl::string_view file, absl::string_view message) {
  return (absl::EndsWith(file, "ssl_transport_security.cc") &&
          absl::StartsWith(message, "Handshake failed")) ||
         (absl::EndsWith(file, "security_handshaker.cc") &&
          absl::StartsWith(message, "Security handshake failed"));
}

}  // namespace

void RouteGrpcLog(int severity, absl::string_view file, int line, absl::string_view message,
                  common::RepeatLog& handshakes) {
  if (IsFailedHandshake(file, message)) {
    if (handshakes.Count(kGrpcUnnamedPeer, message)) {
      common::Log(common::LogLevel::kWarning, kHandshakeFailedMessage,
                  {{"error", std::string(message)}});
    }
    return;
  }
  const size_t slash = file.rfind('/');
  const absl::string_view base = slash == absl::string_view::npos ? file : file.substr(slash + 1);
  common::Log(
      severity == GPR_LOG_SEVERITY_ERROR ? common::LogLevel::kError : common::LogLevel::kInfo,
      kGrpcLogMessage,
      {{"message", std::string(message)}, {"source", absl::StrCat(base, ":", line)}});
}

common::RepeatLog& RouteGrpcLogsToServiceLog() {
  static common::RepeatLog* handshakes = [] {
    auto* log = new common::RepeatLog(
        {.summary_message = kHandshakeFailedSummary, .level = common::LogLevel::kWarning},
        common::RealClock::Default());
    log->Start();
    installed_handshakes.store(log, std::memory_order_release);
    gpr_set_log_function(InstalledLogFunction);
    return log;
  }();
  return *handshakes;
}

}  // namespace credledger::service
