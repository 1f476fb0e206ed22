// ReportAgent: the loop of `credledger agent`, which only pushes its report and never
// watches (docs/reports.md, "The agent").
//
// Every `interval` one tick collects the target cluster's report (report_collector.h) and
// compares it, ignoring lastReportTime, with the last report SUCCESSFULLY pushed. It pushes
// when the report changed, or when the last push is at least `max_report_age` old: push on
// change alone would freeze lastReportTime on a quiet cluster, and a stale lastReportTime
// is what marks a Target dead. Before the first successful push every tick pushes.
//
// A push writes the TargetReport <namespace>/<name> (solar.opendefense.cloud/v1alpha1) on the
// SolAr-side API server: GET it, replace its `spec` with the report (EncodeTargetReportSpec)
// stamped lastReportTime = now in whole seconds, and PUT it with the object's
// resourceVersion; a 409 Conflict re-reads and retries once within the tick. The agent never
// creates its TargetReport or Target (its RBAC allows only get and update by name): a
// missing TargetReport is logged as "TargetReport <ns>/<name> does not exist; credledger
// creates it when the Target is registered" and retried next tick. A report that fails
// ValidateReportContent (projections/report_validation.h) is logged and not pushed. A failed
// push leaves the last pushed report as it was, so the next tick retries: the interval is
// the backoff.
//
// credledger refuses a report whose lastReportTime runs more than 5 minutes ahead of its own
// clock (docs/reports.md, "Clock skew"), and the agent cannot see that answer. So after each
// push it compares the report's lastReportTime with the SolAr-side API server's clock (the
// Date header of the PUT's response, KubeClient::server_date) and logs when the difference
// goes above that limit ("the agent's clock runs ahead of the API server's; ...", a warning
// naming the offset and the fix: sync the node's clock) and when it comes back within it (an
// info line): one line per change, never one per push.
//
// The SolAr-side client authenticates with whatever its ConnectionConfig holds; with a
// kubeconfig tokenFile the client re-reads the file when it changes (token_source.h), so a
// rotated token is used on the next request without a restart.
//
// Logs are JSON lines (common/log.h) naming the TargetReport: each push with its reason
// and resourceVersion, each failed tick with its error, and the collector's skipped lines
// whenever they differ from the previous tick's. No log or error carries a token.
//
// Thread-safety: Tick and Run must not run concurrently with each other; ticks() and
// WaitTicks() may be called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/report.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"

namespace credledger::kubebridge {

struct ReportAgentOptions {
  // The Target this agent reports for: its TargetReport has the same namespace and name.
  std::string target_namespace{};
  std::string target_name{};
  // Time between ticks.
  absl::Duration interval = absl::Seconds(30);
  // An unchanged report is pushed anyway once the last push is this old; zero means ten
  // intervals, the default (docs/reports.md, "The agent").
  absl::Duration max_report_age = absl::ZeroDuration();
};

// Checks `options`: namespace and name are DNS-1123 labels, interval >= 1s, and a non-zero
// max_report_age >= interval.
// Errors: kInvalidArgument naming the flag of `credledger agent` that carries the field
// (--target-namespace, --target-name, --interval, --max-report-age) and the rule.
absl::Status ValidateReportAgentOptions(const ReportAgentOptions& options);

// What one tick did.
enum class TickOutcome {
  kPushed,     // the report was written
  kUnchanged,  // nothing changed and the last push is younger than max_report_age
};

class ReportAgent {
 public:
  // `target_cluster` reads the cluster the agent reports on; `solar` writes the TargetReport.
  // REQUIRES: ValidateReportAgentOptions(options) is OK; the pointers outlive the agent.
  ReportAgent(KubeClient* target_cluster, KubeClient* solar, common::Clock* clock,
              ReportAgentOptions options);

  // Runs one tick at clock->Now() (see the file comment) and returns what it did.
  // Errors (also logged): the collector's errors; kInvalidArgument when the report fails
  // validation; kNotFound when the TargetReport does not exist; the mapped error of a
  // failed GET or PUT (kAborted after a second conflict, kUnauthenticated for a rejected
  // token, ...), the message naming the TargetReport; kCancelled when `cancel` fired.
  absl::StatusOr<TickOutcome> Tick(Cancellation* cancel = nullptr);

  // Ticks at once, then every interval after the start of the previous tick (at once when
  // a tick took longer), until `stop` is cancelled; a running tick's requests end with it.
  void Run(Cancellation& stop);

  // Ticks finished by Run so far, and a bounded wait for a count (real time; tests).
  int64_t ticks() const;
  bool WaitTicks(int64_t count, absl::Duration timeout) const;

  // The effective max_report_age (options' value, or ten intervals when zero).
  absl::Duration max_report_age() const { return max_report_age_; }

 private:
  // GETs, updates and PUTs the TargetReport; returns the new resourceVersion.
  absl::StatusOr<std::string> Push(const v1::TargetReportSpec& spec, Cancellation* cancel);
  // Compares `report_time`, the lastReportTime just pushed, with the API server's clock and
  // logs when it starts or stops running too far ahead of it (see the file comment).
  void CheckClock(absl::Time report_time);
  void LogSkipped(const std::vector<std::string>& skipped);

  KubeClient* target_cluster_;
  KubeClient* solar_;
  common::Clock* clock_;
  const ReportAgentOptions options_;
  const absl::Duration max_report_age_;
  const std::string report_key_;  // "<namespace>/<name>"

  // The content (no lastReportTime) and time of the last successful push.
  std::optional<v1::TargetReportSpec> last_pushed_;
  absl::Time last_push_time_ = absl::InfinitePast();
  std::vector<std::string> last_skipped_;
  // The last push's lastReportTime ran too far ahead of the API server's clock.
  bool clock_ahead_ = false;

  mutable absl::Mutex ticks_mu_;
  int64_t ticks_ ABSL_GUARDED_BY(ticks_mu_) = 0;
};

}  // namespace credledger::kubebridge
