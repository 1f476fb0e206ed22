#include "service/decide/report_commands.h"

namespace credledger::service {
namespace {

struct ReportCommandNamer {
  const char* operator()(const SubmitReport&) const { return "SubmitReport"; }
  const char* operator()(const SetBoundReleases&) const { return "SetBoundReleases"; }
  const char* operator()(const MarkStale&) const { return "MarkStale"; }
  const char* operator()(const RecordLiveness&) const { return "RecordLiveness"; }
};

}  // namespace

absl::string_view ReportFieldPrefix(ReportSource source) {
  return source == ReportSource::kTargetReport ? "spec" : "report";
}

std::string CommandName(const ReportCommand& command) {
  return std::visit(ReportCommandNamer{}, command);
}

}  // namespace credledger::service
