// Stored-event builders shared by the pure decider and fold tests of one Target,
// fleet/edge-1 with uid kUid: the target-stream and report-stream events they give and
// expect. Times are absl::Time; the builders convert them to proto Timestamps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "projections/proto_time.h"

namespace credledger::testing::fleet_target {

inline constexpr char kNamespace[] = "fleet";
inline constexpr char kName[] = "edge-1";
inline constexpr char kUid[] = "6f1c2a9e-0b7d-4e52-9c3a-1d2e3f405162";
inline constexpr char kOtherUid[] = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d";
inline const absl::Time kT0 = absl::FromUnixSeconds(1767225600);  // 2026-01-01T00:00:00Z

// TargetRegistered of fleet/edge-1 with `uid`.
inline v1::Event Registered(const std::string& uid = kUid) {
  v1::Event e;
  e.mutable_target_registered()->set_target_uid(uid);
  e.mutable_target_registered()->set_namespace_(kNamespace);
  e.mutable_target_registered()->set_name(kName);
  return e;
}

// TargetDeletionRequested of kUid.
inline v1::Event DeletionRequested() {
  v1::Event e;
  e.mutable_target_deletion_requested()->set_target_uid(kUid);
  return e;
}

// ReportAccepted of `report`, received at `received_at`.
inline v1::Event Accepted(const v1::TargetReportSpec& report, absl::Time received_at,
                          const std::string& uid = kUid) {
  v1::Event e;
  e.mutable_report_accepted()->set_target_uid(uid);
  *e.mutable_report_accepted()->mutable_report() = report;
  *e.mutable_report_accepted()->mutable_received_at() = projections::ToProto(received_at);
  return e;
}

// ReportingStale of kUid: silent since `last_seen_at` for `stale_after_seconds`.
inline v1::Event Stale(absl::Time last_seen_at, int64_t stale_after_seconds = 600) {
  v1::Event e;
  e.mutable_reporting_stale()->set_target_uid(kUid);
  *e.mutable_reporting_stale()->mutable_last_seen_at() = projections::ToProto(last_seen_at);
  e.mutable_reporting_stale()->set_stale_after_seconds(stale_after_seconds);
  return e;
}

// ReportClockSkewDetected of kUid: a report of `last_report_time` refused at `server_time`.
inline v1::Event ClockSkewDetected(absl::Time last_report_time, absl::Time server_time) {
  v1::Event e;
  v1::ReportClockSkewDetected& detected = *e.mutable_report_clock_skew_detected();
  detected.set_target_uid(kUid);
  *detected.mutable_last_report_time() = projections::ToProto(last_report_time);
  *detected.mutable_server_time() = projections::ToProto(server_time);
  return e;
}

// ReportClockSkewCleared of kUid: a report or heartbeat of `last_report_time` received at
// `received_at`.
inline v1::Event ClockSkewCleared(absl::Time last_report_time, absl::Time received_at) {
  v1::Event e;
  v1::ReportClockSkewCleared& cleared = *e.mutable_report_clock_skew_cleared();
  cleared.set_target_uid(kUid);
  *cleared.mutable_last_report_time() = projections::ToProto(last_report_time);
  *cleared.mutable_received_at() = projections::ToProto(received_at);
  return e;
}

// One heartbeat of fleet/`name` with `uid` for a LivenessObserved batch.
inline v1::LivenessEntry Heartbeat(absl::Time received_at, absl::Time last_report_time,
                                   const std::string& uid = kUid,
                                   const std::string& name = kName) {
  v1::LivenessEntry entry;
  entry.set_namespace_(kNamespace);
  entry.set_name(name);
  entry.set_target_uid(uid);
  *entry.mutable_received_at() = projections::ToProto(received_at);
  *entry.mutable_last_report_time() = projections::ToProto(last_report_time);
  return entry;
}

// LivenessObserved with `entries`.
inline v1::Event Liveness(const std::vector<v1::LivenessEntry>& entries) {
  v1::Event e;
  for (const v1::LivenessEntry& entry : entries) {
    *e.mutable_liveness_observed()->add_entries() = entry;
  }
  return e;
}

}  // namespace credledger::testing::fleet_target
