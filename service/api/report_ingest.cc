#include "service/api/report_ingest.h"

#include <algorithm>

#include "common/status_macros.h"
#include "projections/proto_time.h"

namespace credledger::service {

ReportIngest::ReportIngest(ReportCommandBus* bus, LivenessBuffer* liveness,
                           projections::CredentialProjector* projector, common::Clock* clock)
    : bus_(bus), liveness_(liveness), projector_(projector), clock_(clock) {}

CommandContext ReportIngest::Context(absl::string_view target_namespace, absl::string_view name,
                                    absl::string_view actor,
                                    const RequestKey& request) const {
  return {std::string(target_namespace), std::string(name), clock_->Now(),
          std::string(actor),            request.id,        projector_->service(),
          request.digest};
}

absl::StatusOr<ReportIngest::PushResult> ReportIngest::Push(absl::string_view target_namespace,
                                                            absl::string_view name,
                                                            const v1::TargetReportSpec& report,
                                                            absl::string_view actor,
                                                            const RequestKey& request) {
  const CommandContext context = Context(target_namespace, name, actor, request);
  std::optional<absl::Time> floor;
  if (std::optional<v1::TargetState> target = projector_->Get(target_namespace, name)) {
    floor = liveness_->Floor(target_namespace, name, target->target_uid());
  }
  SubmitReport command{report, context.now, floor};
  absl::StatusOr<ReportCommandResult> result = bus_->Execute(command, context);
  if (!result.ok()) return result.status();

  PushResult out;
  out.heartbeat = result->note.heartbeat;
  out.replayed = result->replayed;
  if (!result->events.empty()) out.seq = result->events.back().seq;
  ASSIGN_OR_RETURN(out.released_secrets, ReleasedSecrets(result->events));
  // A heartbeat refreshes liveness only when its lastReportTime is new: a retry of the last
  // report (the same object read again, a client retry) says nothing about the agent now.
  const absl::Time report_time = projections::FromProto(report.last_report_time());
  const absl::Time last_known =
      std::max(projections::FromProto(result->state.status.last_report_time()),
               floor.value_or(absl::InfinitePast()));
  if (result->note.heartbeat && !result->replayed && report_time > last_known) {
    v1::LivenessEntry entry;
    entry.set_namespace_(std::string(target_namespace));
    entry.set_name(std::string(name));
    entry.set_target_uid(result->state.status.target_uid());
    *entry.mutable_received_at() = projections::ToProto(context.now);
    *entry.mutable_last_report_time() = report.last_report_time();
    liveness_->Record(entry);
  }
  return out;
}

absl::StatusOr<ReportIngest::SetResult> ReportIngest::SetBoundReleases(
    absl::string_view target_namespace, absl::string_view name,
    const std::vector<v1::BoundRelease>& releases, absl::string_view bootstrap_version,
    absl::string_view actor, const RequestKey& request) {
  const CommandContext context = Context(target_namespace, name, actor, request);
  service::SetBoundReleases command{releases, std::string(bootstrap_version)};
  absl::StatusOr<ReportCommandResult> result = bus_->Execute(command, context);
  if (!result.ok()) return result.status();
  SetResult out;
  out.replayed = result->replayed;
  if (!result->events.empty()) out.seq = result->events.back().seq;
  return out;
}

}  // namespace credledger::service
