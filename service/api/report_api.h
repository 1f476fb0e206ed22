// ReportApi: the ReportService RPCs (proto/credledger/v1/api.proto) without gRPC (docs/api.md,
// "ReportService"; docs/reports.md, "Ingest" and "Rollups"): input validation at the edge,
// reports and bound releases through ReportIngest, and reads from the StatusProjector. The gRPC
// adapter (report_grpc_service.h) only extracts the actor and maps statuses.
//
// Mutating calls validate namespace and name (DNS-1123 labels), the request id and the actor
// (as TargetApi does) and their own request shape before anything is appended; the report's
// content is validated by the report decider behind ReportIngest, with field paths under
// "report.". A call that appended events waits (bounded) until the status projector has
// folded them, so that a read after the call reflects it.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/api.pb.h"
#include "projections/status_projector.h"
#include "service/api/fleet_watch.h"
#include "service/api/target_scope.h"

namespace credledger::service {

class ReportIngest;

class ReportApi {
 public:
  struct Options {
    // How long a call that appended events waits for the status projector to fold them.
    absl::Duration read_your_writes_timeout = absl::Seconds(5);
    // Live changes one watch may hold for a slow client (FleetWatch::Options::queue_limit).
    size_t watch_queue_limit = 1024;
    // Bytes of live changes one watch may hold (FleetWatch::Options::queue_bytes_limit).
    size_t watch_queue_bytes = size_t{4} << 20;
  };

  // `ingest` and `statuses` are not owned and must outlive the api.
  ReportApi(ReportIngest* ingest, projections::StatusProjector* statuses, Options options);

  // Submits a report on behalf of `actor` (empty means anonymous).
  // Errors: kInvalidArgument naming namespace, name, request_id, credledger-actor, or
  // "report: required" when the request carries none; ReportIngest::Push's (kInvalidArgument
  // for a report over --report-max-bytes, kResourceExhausted below --space-reserve, the
  // decider's kInvalidArgument naming "report.<field path>", kNotFound, kFailedPrecondition;
  // kUnavailable). A held report answers held with held_until and seq 0.
  absl::StatusOr<v1::PushReportResponse> PushReport(const v1::PushReportRequest& request,
                                                    absl::string_view actor);
  // Sets the Target's bound releases and bootstrap version.
  // Errors: kInvalidArgument naming namespace, name, request_id, credledger-actor, or
  // "releases[i].name" / "releases[i].namespace" when not a DNS-1123 label;
  // ReportIngest::SetBoundReleases's (duplicates, bootstrap_version, kNotFound, ...).
  absl::StatusOr<v1::SetBoundReleasesResponse> SetBoundReleases(
      const v1::SetBoundReleasesRequest& request, absl::string_view actor);

  // One Target's rollup, including a finalized Target's last one (active false).
  // Errors: kInvalidArgument (namespace, name); kNotFound when never registered.
  absl::StatusOr<v1::GetTargetStatusResponse> GetTargetStatus(
      const v1::GetTargetStatusRequest& request) const;
  // The rollups of active Targets, optionally of one namespace and with one condition in
  // one status, ordered by namespace then name, with the FleetSummary over them.
  // Only Targets in `scope` are listed and counted (docs/api.md, "Target scopes").
  // Errors: kInvalidArgument naming namespace, or condition_type / condition_status when
  // only one of them is given, the type is not Reporting, PreflightReady or ReleasesReady,
  // or the status is not True, False or Unknown.
  absl::StatusOr<v1::ListFleetStatusResponse> ListFleetStatus(
      const v1::ListFleetStatusRequest& request, const TargetScope& scope) const;
  // Starts a fleet watch over the Targets in `scope`. Errors: kInvalidArgument (namespace,
  // negative after_seq); kResourceExhausted when the changes after after_seq are no longer
  // kept.
  // `wake` as ProjectorWatch::Start's (projector_watch.h).
  absl::StatusOr<std::unique_ptr<FleetWatch>> WatchFleet(const v1::WatchFleetRequest& request,
                                                         const TargetScope& scope,
                                                         std::function<void()> wake) const;

 private:
  // Waits (bounded) until the status projector has folded `seq`; 0 waits for nothing.
  void AwaitFolded(int64_t seq) const;

  ReportIngest* const ingest_;
  projections::StatusProjector* const statuses_;
  const Options options_;
};

}  // namespace credledger::service
