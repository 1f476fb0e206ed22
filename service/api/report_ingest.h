// ReportIngest: the one path every status report takes, whether it comes from the kube
// bridge's TargetReport watch or from the PushReport RPC (docs/reports.md, "Ingest" and
// "Liveness and staleness").
//
// A report is decided by the report decider through the ReportCommandBus with the
// service's receive time. A changed report appends one ReportAccepted (and a rollout
// confirmation when it proves the current credential rolled out). A heartbeat (equal to
// the last accepted report apart from lastReportTime) appends nothing here: it is kept in
// the LivenessBuffer and recorded by the next LivenessObserved batch; its lastReportTime is
// the floor the next report must pass.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "credledger/v1/report.pb.h"
#include "projections/credential_projector.h"
#include "service/api/liveness_buffer.h"
#include "service/bus/prior_request.h"
#include "service/bus/report_command_bus.h"

namespace credledger::service {

class ReportIngest {
 public:
  // What a submitted report did.
  struct PushResult {
    // True for a heartbeat or a retry of the last report: nothing was appended.
    bool heartbeat = false;
    // True when the request id had been answered before; nothing was appended.
    bool replayed = false;
    // seq of the last event appended; 0 when none.
    int64_t seq = 0;
    // Older credential Secrets a rollout confirmation released for deletion.
    std::vector<std::string> released_secrets;
  };
  // What SetBoundReleases did.
  struct SetResult {
    bool replayed = false;
    int64_t seq = 0;  // 0 when nothing changed
  };

  // None of the arguments is owned; all must outlive the ingest. `projector` gives the
  // service configuration commands decide under.
  ReportIngest(ReportCommandBus* bus, LivenessBuffer* liveness,
               projections::CredentialProjector* projector, common::Clock* clock);

  // Submits `report` for Target <target_namespace>/<name> on behalf of `actor` under
  // `request` (its id and digest; an empty digest for the service's own reports). Names,
  // request id and actor must already be validated.
  // Errors: the decider's (kInvalidArgument naming "report.<field path>", kNotFound,
  // kFailedPrecondition); kFailedPrecondition for a request id used for another command or request;
  // kUnavailable when the log cannot be written. Nothing is changed on error.
  absl::StatusOr<PushResult> Push(absl::string_view target_namespace, absl::string_view name,
                                  const v1::TargetReportSpec& report, absl::string_view actor,
                                  const RequestKey& request);

  // Sets the releases bound to the Target and their bootstrap version.
  // Errors: as Push, with kInvalidArgument naming "releases[i].<field>" or
  // "bootstrap_version".
  absl::StatusOr<SetResult> SetBoundReleases(absl::string_view target_namespace,
                                             absl::string_view name,
                                             const std::vector<v1::BoundRelease>& releases,
                                             absl::string_view bootstrap_version,
                                             absl::string_view actor,
                                             const RequestKey& request);

 private:
  // The context of a command for the Target at the clock's now, under the configuration the
  // projector holds.
  CommandContext Context(absl::string_view target_namespace, absl::string_view name,
                         absl::string_view actor, const RequestKey& request) const;

  ReportCommandBus* bus_;
  LivenessBuffer* liveness_;
  projections::CredentialProjector* projector_;
  common::Clock* clock_;
};

}  // namespace credledger::service
