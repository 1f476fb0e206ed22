#include "cli/status_cli.h"

#include <memory>
#include <string>
#include <vector>

#include "cli/client_command.h"
#include "cli/status_printer.h"
#include "credledger/v1/api.grpc.pb.h"

namespace credledger::cli {
namespace {

using ReportStub = v1::ReportService::Stub;

class StatusCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    return args.empty() ? RunTable(out, err) : RunOne(args[0], out, err);
  }

 private:
  int RunOne(const std::string& arg, std::ostream& out, std::ostream& err) const {
    v1::GetTargetStatusRequest request;
    std::string target_namespace, name;
    if (!SplitTarget(arg, &target_namespace, &name)) return BadTarget(arg, err);
    request.set_namespace_(target_namespace);
    request.set_name(name);
    return CallAndPrint(
        &ReportStub::GetTargetStatus, request,
        [](const v1::GetTargetStatusResponse& r) { return FormatStatusText(r.status()); }, out,
        err);
  }

  int RunTable(std::ostream& out, std::ostream& err) const {
    v1::ListFleetStatusResponse response;
    const absl::Status status =
        Call(&ReportStub::ListFleetStatus, v1::ListFleetStatusRequest(), &response);
    if (!status.ok()) return ReportError(status, err);
    std::string text = FormatStatusTableHeader();
    for (const v1::TargetStatusView& t : response.targets()) {
      text += FormatStatusRow(t);
    }
    return Print(response, text, out, err);
  }
};

class FleetCommand final : public ClientCommand {
 public:
  absl::Status CheckFlags() const override {
    if (absl::Status checked = ClientCommand::CheckFlags(); !checked.ok()) return checked;
    if (after_seq_ < 0) return absl::InvalidArgumentError("--after-seq: must be 0 or more");
    return absl::OkStatus();
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    if (watch_) {
      if (!condition_.empty()) {
        return ReportUsageError(
            "--condition cannot be combined with --watch (WatchFleet streams "
            "every Target of the namespace)",
            err);
      }
      return RunWatch(out, err);
    }
    if (after_seq_ != 0) return ReportUsageError("--after-seq needs --watch", err);
    return RunList(out, err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags.Add("namespace", &namespace_, "only Targets of this namespace");
    flags.Add("condition", &condition_,
              "only Targets whose condition has this status, as <Type>=<Status> (for "
              "example Reporting=False), listed below the counts; not with --watch");
    flags.Add("watch", &watch_, "stream the snapshot, its counts, then every change");
    flags.Add("after-seq", &after_seq_,
              "with --watch: resume after this seq without a snapshot; 0 starts with one");
  }

  int RunList(std::ostream& out, std::ostream& err) const {
    v1::ListFleetStatusRequest request;
    request.set_namespace_(namespace_);
    if (!condition_.empty()) {
      const size_t equals = condition_.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == condition_.size()) {
        return ReportUsageError(
            "--condition: expected <Type>=<Status> (for example "
            "Reporting=False), got \"" +
                condition_ + "\"",
            err);
      }
      request.set_condition_type(condition_.substr(0, equals));
      request.set_condition_status(condition_.substr(equals + 1));
    }
    return CallAndPrint(
        &ReportStub::ListFleetStatus, request,
        [this](const v1::ListFleetStatusResponse& r) {
          std::string text = FormatFleetSummary(r.summary(), r.seq());
          // With a condition the operator asks "which ones": list them below the counts.
          if (!condition_.empty() && r.targets_size() > 0) {
            text += "\n" + FormatStatusTableHeader();
            for (const v1::TargetStatusView& t : r.targets()) text += FormatStatusRow(t);
          }
          return text;
        },
        out, err);
  }

  int RunWatch(std::ostream& out, std::ostream& err) const {
    v1::WatchFleetRequest request;
    request.set_namespace_(namespace_);
    request.set_after_seq(after_seq_);
    return PrintStream(&ReportStub::WatchFleet, request, FormatFleetWatchItem, out, err);
  }

  std::string namespace_;
  std::string condition_;
  bool watch_ = false;
  int64_t after_seq_ = 0;
};

}  // namespace

void AddStatusCommands(Dispatcher& d) {
  d.Add({"status", "[<namespace>/<name>]",
         "show one Target's report rollup, or a table of every Target's conditions", 0, 1,
         [] { return std::make_unique<StatusCommand>(); }});
  d.Add({"fleet", "", "show fleet counts and stale, rolled-back and drifted Targets", 0, 0,
         [] { return std::make_unique<FleetCommand>(); }});
}

}  // namespace credledger::cli
