#include "cli/agent_cli.h"

#include <pthread.h>
#include <signal.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "kubebridge/agent/report_agent.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"

namespace credledger::cli {
namespace {

constexpr char kDescription[] =
    "The agent lists the Flux OCIRepository/HelmRelease pairs labelled\n"
    "solar.opendefense.cloud/release on its cluster, derives each release's phase, collects\n"
    "capacity (node allocatable, requests of running pods) and writes the result into the\n"
    "TargetReport of its Target on the SolAr-side API server. It never creates the\n"
    "TargetReport or the Target: credledger creates the TargetReport when the Target is\n"
    "registered.\n"
    "\n"
    "Push on change: every --interval the agent collects a report and compares it, ignoring\n"
    "lastReportTime, with the last report it pushed successfully, and writes the TargetReport\n"
    "only when the report changed. A quiet cluster would then never refresh lastReportTime,\n"
    "and a stale lastReportTime is what marks a Target dead; so an unchanged report is pushed\n"
    "anyway once the last push is --max-report-age old (MaxReportAge, default ten intervals).\n"
    "A failed push is retried at the next tick. A token file named by --solar-kubeconfig is\n"
    "re-read when it changes, so a rotated token needs no restart.\n"
    "\n"
    "Preflight checks are not collected (capacity preflight is out of scope): the report's\n"
    "spec.preflight stays empty.\n";

// The error of a flag value: printed as a usage error ("error: <message>"), with the help hint.
int AgentFlagError(const absl::Status& status, std::ostream& err) {
  ReportUsageError(status.message(), err);
  err << "run 'credledger agent --help' for the flags\n";
  return kExitUsage;
}

absl::StatusOr<std::unique_ptr<kubebridge::KubeClient>> ClientFor(
    absl::StatusOr<kubebridge::ConnectionConfig> config) {
  if (!config.ok()) return config.status();
  return kubebridge::KubeClient::New(*std::move(config));
}

class AgentCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags.Add("target-namespace", &options_.target_namespace,
              "namespace of the Target (and of its TargetReport) on the SolAr side; required");
    flags.Add("target-name", &options_.target_name,
              "name of the Target (and of its TargetReport); required");
    flags.Add("solar-kubeconfig", &solar_kubeconfig_,
              "kubeconfig of the SolAr-side API server, usually with a tokenFile; required");
    flags.Add("kubeconfig", &kubeconfig_,
              "kubeconfig of the cluster to report on (default: the in-cluster service account)");
    flags.Add("interval", &options_.interval, "time between collections, at least 1s");
    flags.Add("max-report-age", &options_.max_report_age,
              "push an unchanged report once the last push is this old, at least --interval; "
              "0 means ten intervals");
    flags.Add("once", &once_, "collect and push once, then exit (non-zero on failure)");
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    if (solar_kubeconfig_.empty()) {
      return AgentFlagError(absl::InvalidArgumentError("--solar-kubeconfig: required"), err);
    }
    if (absl::Status valid = kubebridge::ValidateReportAgentOptions(options_); !valid.ok()) {
      return AgentFlagError(valid, err);
    }
    const std::string report =
        absl::StrCat("TargetReport ", options_.target_namespace, "/", options_.target_name);
    if (once_) return RunOnce(report, out, err);

    // Every thread started from here on inherits this mask, so the signals reach only sigwait.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    absl::Status connected = Connect();
    if (!connected.ok()) return ReportError(connected, err);
    kubebridge::ReportAgent agent(target_.get(), solar_.get(), common::RealClock::Default(),
                                  options_);
    kubebridge::Cancellation stop;
    std::thread runner([&] { agent.Run(stop); });
    out << "credledger agent reporting to " << report << " every "
        << absl::FormatDuration(options_.interval) << std::endl;
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    err << "credledger agent: " << strsignal(signal_number) << ", shutting down\n";
    stop.Cancel();
    runner.join();
    return kExitOk;
  }

 private:
  absl::Status Connect() {
    absl::StatusOr<std::unique_ptr<kubebridge::KubeClient>> target =
        ClientFor(kubeconfig_.empty() ? kubebridge::LoadInClusterConfig(
                                            kubebridge::InClusterEnvironment::FromProcess())
                                      : kubebridge::LoadKubeconfig(kubeconfig_));
    if (!target.ok()) {
      return Prefixed(target.status(),
                      kubeconfig_.empty() ? "--kubeconfig not given, in-cluster configuration"
                                          : "--kubeconfig");
    }
    target_ = *std::move(target);
    absl::StatusOr<std::unique_ptr<kubebridge::KubeClient>> solar =
        ClientFor(kubebridge::LoadKubeconfig(solar_kubeconfig_));
    if (!solar.ok()) return Prefixed(solar.status(), "--solar-kubeconfig");
    solar_ = *std::move(solar);
    return absl::OkStatus();
  }

  // `status` with its message prefixed by `flag` (which flag's file failed).
  static absl::Status Prefixed(const absl::Status& status, absl::string_view flag) {
    return absl::Status(status.code(), absl::StrCat(flag, ": ", status.message()));
  }

  int RunOnce(const std::string& report, std::ostream& out, std::ostream& err) {
    absl::Status connected = Connect();
    if (!connected.ok()) return ReportError(connected, err);
    kubebridge::ReportAgent agent(target_.get(), solar_.get(), common::RealClock::Default(),
                                  options_);
    absl::StatusOr<kubebridge::TickOutcome> outcome = agent.Tick();
    if (!outcome.ok()) return ReportError(outcome.status(), err);
    out << "pushed " << report << "\n";
    return kExitOk;
  }

  kubebridge::ReportAgentOptions options_;
  std::string solar_kubeconfig_;
  std::string kubeconfig_;
  bool once_ = false;
  std::unique_ptr<kubebridge::KubeClient> target_;
  std::unique_ptr<kubebridge::KubeClient> solar_;
};

}  // namespace

void AddAgentCommands(Dispatcher& d) {
  d.Add({"agent", "", "report this cluster's releases and capacity into its TargetReport", 0, 0,
         [] { return std::make_unique<AgentCommand>(); }, kDescription});
}

}  // namespace credledger::cli
