#include "service/api/report_ingest.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "projections/proto_time.h"
#include "projections/report_validation.h"
#include "projections/target_state.h"
#include "service/decide/heartbeat_rule.h"

namespace credledger::service {
ReportIngest::ReportIngest(ReportCommandBus* bus, LivenessBuffer* liveness,
                           projections::CredentialProjector* projector, const SpaceReserve* space,
                           common::Clock* clock, Limits limits, HeartbeatPath heartbeats)
    : bus_(bus),
      liveness_(liveness),
      projector_(projector),
      space_(space),
      clock_(clock),
      limits_(limits),
      heartbeat_path_(heartbeats) {}

CommandContext ReportIngest::Context(absl::string_view target_namespace, absl::string_view name,
                                     absl::string_view actor, const RequestKey& request) const {
  return {std::string(target_namespace),
          std::string(name),
          clock_->Now(),
          std::string(actor),
          request.id,
          projector_->service(),
          request.digest};
}

std::optional<absl::Time> ReportIngest::Floor(absl::string_view target_namespace,
                                              absl::string_view name) const {
  std::optional<v1::TargetState> target = projector_->Get(target_namespace, name);
  if (!target.has_value()) return Floor(target_namespace, name, std::nullopt);
  return Floor(target_namespace, name, target->target_uid());
}

std::optional<absl::Time> ReportIngest::Floor(absl::string_view target_namespace,
                                              absl::string_view name,
                                              std::optional<absl::string_view> target_uid) const {
  std::optional<absl::Time> floor;
  if (target_uid.has_value()) floor = liveness_->Floor(target_namespace, name, *target_uid);
  if (std::optional<HeldReports::Held> held = held_.Find(target_namespace, name)) {
    floor = std::max(floor.value_or(absl::InfinitePast()),
                     projections::FromProto(held->report.last_report_time()));
  }
  return floor;
}

absl::StatusOr<ReportCommandResult> ReportIngest::Submit(const HeldReports::Held& report,
                                                         std::optional<absl::Time> floor,
                                                         absl::Duration min_interval,
                                                         const absl::Status& space,
                                                         HeartbeatIndex::Write& write) {
  const CommandContext context =
      Context(report.target_namespace, report.name, report.actor, report.request);
  SubmitReport command{report.report, report.received_at, floor,
                       min_interval,  !space.ok(),        report.source};
  absl::StatusOr<ReportCommandResult> result = bus_->Execute(command, context);
  if (result.ok()) write.Decided(result->state);
  return result;
}

bool ReportIngest::RecordHeartbeat(absl::string_view target_namespace, absl::string_view name,
                                   const v1::TargetReportSpec& report, const RequestKey& request,
                                   ReportSource source, absl::Time received_at) {
  const std::optional<HeartbeatIndex::Snapshot> found = heartbeats_.Find(target_namespace, name);
  // A baseline's report passes ValidateReportContent, so a report of the same content passes it
  // when its lastReportTime does (checked before the content is compared).
  if (!found.has_value() ||
      !projections::ValidateReportTime(report, ReportFieldPrefix(source)).ok()) {
    return false;
  }
  const absl::Time report_time = projections::FromProto(report.last_report_time());
  if (ClassifyReport(found->baseline, ReportContentDigest(report), report_time,
                     Floor(target_namespace, name, found->target_uid),
                     received_at) != ReportKind::kHeartbeat) {
    return false;
  }
  // What the baseline cannot tell: a request id answered before (its answer is a replay or a
  // refusal), and a command of the Target's own stream since the baseline was folded (the
  // Target deleted, registered again, ...).
  absl::StatusOr<store::RequestProbe> probe =
      bus_->store()->ProbeRequest(request.id, projections::TargetStream(target_namespace, name));
  if (!probe.ok() || probe->request_used || probe->stream_version != found->target_version) {
    return false;
  }
  v1::LivenessEntry entry;
  entry.set_namespace_(std::string(target_namespace));
  entry.set_name(std::string(name));
  entry.set_target_uid(found->target_uid);
  *entry.mutable_received_at() = projections::ToProto(received_at);
  *entry.mutable_last_report_time() = report.last_report_time();
  if (!heartbeats_.Commit(*found, std::move(entry), *liveness_)) return false;
  held_.DropUpTo(target_namespace, name, report_time);
  return true;
}

absl::StatusOr<ReportIngest::PushResult> ReportIngest::Push(
    absl::string_view target_namespace, absl::string_view name, const v1::TargetReportSpec& report,
    absl::string_view actor, const RequestKey& request, ReportSource source) {
  const size_t bytes = report.ByteSizeLong();
  if (bytes > static_cast<size_t>(limits_.max_report_bytes)) {
    refused_too_large_.fetch_add(1);
    return absl::InvalidArgumentError(absl::StrCat(
        "target \"", target_namespace, "/", name, "\": report is ", bytes,
        " bytes, above the limit of ", limits_.max_report_bytes, " bytes (--report-max-bytes)"));
  }
  PushResult out;
  std::optional<HeldReports::Held> held = held_.Find(target_namespace, name);
  if (held.has_value() && held->request.id == request.id &&
      held->request.digest == request.digest) {
    out.held = true;  // a retry of the held report's request
    out.held_until = held->due;
    return out;
  }
  const absl::Status space = space_->Check();
  const absl::Time received_at = clock_->Now();
  if (heartbeat_path_ == HeartbeatPath::kWithoutWriter && space.ok() &&
      RecordHeartbeat(target_namespace, name, report, request, source, received_at)) {
    out.heartbeat = true;
    return out;
  }
  // The writer decides. From here until the answer, no heartbeat of the Target is decided
  // without it, and the floor is read after any that was.
  HeartbeatIndex::Write write = heartbeats_.Begin(target_namespace, name);
  const std::optional<absl::Time> floor = Floor(target_namespace, name);
  HeldReports::Held submitted{std::string(target_namespace),
                              std::string(name),
                              report,
                              received_at,
                              std::string(actor),
                              request,
                              source,
                              absl::InfinitePast()};
  common::FaultPoint("report.before_submit");
  ASSIGN_OR_RETURN(ReportCommandResult result,
                   Submit(submitted, floor, limits_.min_interval, space, write));
  common::FaultPoint("report.after_submit");
  // A report too far ahead is refused even when the refusal recorded a clock skew, and a
  // retried request whose first answer recorded one is refused the same way again.
  if (!result.note.refusal.ok()) return result.note.refusal;
  if (result.replayed) RETURN_IF_ERROR(RefusalOf(result.events, source));
  out.heartbeat = result.note.heartbeat;
  out.replayed = result.replayed;
  if (!result.replayed && (result.note.refused || (result.note.heartbeat && !space.ok()))) {
    refused_no_space_.fetch_add(1);
    return space;
  }
  if (result.note.held) {
    submitted.due = projections::FromProto(result.state.status.last_report_received_at()) +
                    limits_.min_interval;
    out.held = true;
    out.held_until = submitted.due;
    held_.Hold(std::move(submitted));
    return out;
  }
  if (!result.events.empty()) out.seq = result.events.back().seq;
  ASSIGN_OR_RETURN(out.released_secrets, ReleasedSecrets(result.events));
  // Newest wins: a held report older than this report or heartbeat will never be appended.
  const absl::Time report_time = projections::FromProto(report.last_report_time());
  held_.DropUpTo(target_namespace, name, report_time);
  // A heartbeat refreshes liveness only when its lastReportTime is new: a retry of the last
  // report (the same object read again, a client retry) says nothing about the agent now, and
  // a heartbeat that ended a clock skew is in the log already (ReportClockSkewCleared, which
  // moved the status's last_report_time to it).
  const absl::Time last_known =
      std::max(projections::FromProto(result.state.status.last_report_time()),
               floor.value_or(absl::InfinitePast()));
  if (result.note.heartbeat && !result.replayed && report_time > last_known) {
    v1::LivenessEntry entry;
    entry.set_namespace_(std::string(target_namespace));
    entry.set_name(std::string(name));
    entry.set_target_uid(result.state.status.target_uid());
    *entry.mutable_received_at() = projections::ToProto(submitted.received_at);
    *entry.mutable_last_report_time() = report.last_report_time();
    liveness_->Record(entry);
  }
  return out;
}

absl::Status ReportIngest::FlushHeld(absl::Time due_by) {
  std::vector<HeldReports::Held> due = held_.TakeDue(due_by);
  if (due.empty()) return absl::OkStatus();
  const absl::Status space = space_->Check();
  std::vector<HeldReports::Held> kept;
  absl::Status first_error;
  for (HeldReports::Held& held : due) {
    HeartbeatIndex::Write write = heartbeats_.Begin(held.target_namespace, held.name);
    absl::StatusOr<ReportCommandResult> result =
        Submit(held, Floor(held.target_namespace, held.name), absl::ZeroDuration(), space, write);
    const absl::Status failed = !result.ok()           ? result.status()
                                : result->note.refused ? space
                                                       : result->note.refusal;
    if (failed.ok()) continue;
    if (absl::IsUnavailable(failed) || absl::IsResourceExhausted(failed)) {
      if (first_error.ok()) first_error = failed;
      kept.push_back(std::move(held));
      continue;
    }
    common::Log(common::LogLevel::kWarning, "held report dropped",
                {{"target", absl::StrCat(held.target_namespace, "/", held.name)},
                 {"request_id", held.request.id},
                 {"error", failed.ToString()}});
  }
  held_.Restore(std::move(kept));
  return first_error;
}

bool ReportIngest::HasHeld(absl::string_view target_namespace, absl::string_view name) const {
  return held_.Find(target_namespace, name).has_value();
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

ReportIngest::Stats ReportIngest::stats() const {
  return {refused_too_large_.load(), refused_no_space_.load(), static_cast<int64_t>(held_.size())};
}

}  // namespace credledger::service
