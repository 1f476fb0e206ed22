#include "test/projections/random_status_log.h"

#include "absl/strings/str_cat.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/target_state.h"
#include "test/support/recorded_events.h"

namespace credledger::testing {

using projections::kLivenessStream;
using projections::ReportStream;
using projections::TargetStream;
using projections::ToProto;

store::RecordedEvent StoredAt(int64_t seq, const std::string& stream, const v1::Event& event) {
  return StoredEvent(seq, stream, seq,
                     absl::ToUnixMicros(absl::FromUnixSeconds(1'795'000'000 + seq)), event);
}

RandomStatusLog::RandomStatusLog(uint32_t seed, int targets) : random_(seed), uids_(targets) {}

store::RecordedEvent RandomStatusLog::Next() {
  now_ += absl::Seconds(1 + Pick(3));
  const int target = Pick(static_cast<int>(uids_.size()));
  const std::string ns = target % 2 == 0 ? "fleet-a" : "fleet-b";
  const std::string name = absl::StrCat("edge-", target);
  std::string& uid = uids_[target];
  v1::Event event;
  const int roll = Pick(100);
  if (uid.empty() || roll < 3) {  // (re-)registration, with a new uid now and then
    if (uid.empty() || Pick(2) == 0) uid = absl::StrCat("uid-", ++uid_counter_);
    v1::TargetRegistered& e = *event.mutable_target_registered();
    e.set_target_uid(uid);
    e.set_namespace_(ns);
    e.set_name(name);
    return Stored(TargetStream(ns, name), event);
  }
  const std::string some_uid = Pick(20) == 0 ? "uid-of-another-incarnation" : uid;
  if (roll < 5) {
    event.mutable_target_finalized()->set_target_uid(some_uid);
    return Stored(TargetStream(ns, name), event);
  }
  if (roll < 9) {
    v1::ReportingStale& e = *event.mutable_reporting_stale();
    e.set_target_uid(some_uid);
    *e.mutable_last_seen_at() = ToProto(now_ - absl::Minutes(10));
    e.set_stale_after_seconds(600);
    return Stored(ReportStream(ns, name), event);
  }
  if (roll < 13) {
    v1::BoundReleasesSet& e = *event.mutable_bound_releases_set();
    e.set_target_uid(some_uid);
    for (int i = 0; i < 3; ++i) {
      if (Pick(2) == 0) continue;
      v1::BoundRelease& b = *e.add_releases();
      b.set_name(absl::StrCat("app-", i));
      b.set_namespace_("flux-system");
    }
    e.set_bootstrap_version(Pick(2) == 0 ? "1.0.0" : "2.0.0");
    return Stored(ReportStream(ns, name), event);
  }
  if (roll < 20) {
    event.mutable_liveness_observed();  // an empty batch is possible too
    for (size_t t = 0; t < uids_.size(); ++t) {
      if (uids_[t].empty() || Pick(2) == 0) continue;
      v1::LivenessEntry& entry = *event.mutable_liveness_observed()->add_entries();
      entry.set_namespace_(t % 2 == 0 ? "fleet-a" : "fleet-b");
      entry.set_name(absl::StrCat("edge-", t));
      entry.set_target_uid(Pick(10) == 0 ? "uid-of-another-incarnation" : uids_[t]);
      // A heartbeat can reach the log after a newer report: times go back now and then.
      *entry.mutable_received_at() = ToProto(now_ - absl::Seconds(Pick(5)));
      *entry.mutable_last_report_time() = ToProto(now_ - absl::Seconds(Pick(8)));
    }
    return Stored(kLivenessStream, event);
  }
  if (roll < 25) {  // a credential event: no status changes
    v1::RotationRequested& e = *event.mutable_rotation_requested();
    e.set_target_uid(uid);
    e.set_request_value(absl::StrCat(roll));
    return Stored(TargetStream(ns, name), event);
  }
  if (roll < 28) {  // the agent's clock found running ahead, or back in line
    if (Pick(2) == 0) {
      v1::ReportClockSkewDetected& e = *event.mutable_report_clock_skew_detected();
      e.set_target_uid(some_uid);
      *e.mutable_last_report_time() = ToProto(now_ + absl::Minutes(10));
      *e.mutable_server_time() = ToProto(now_);
    } else {
      v1::ReportClockSkewCleared& e = *event.mutable_report_clock_skew_cleared();
      e.set_target_uid(some_uid);
      *e.mutable_last_report_time() = ToProto(now_ - absl::Seconds(Pick(8)));
      *e.mutable_received_at() = ToProto(now_ - absl::Seconds(Pick(4)));
    }
    return Stored(ReportStream(ns, name), event);
  }
  v1::ReportAccepted& e = *event.mutable_report_accepted();
  e.set_target_uid(some_uid);
  *e.mutable_received_at() = ToProto(now_ - absl::Seconds(Pick(4)));
  v1::TargetReportSpec& report = *e.mutable_report();
  if (Pick(6) != 0) *report.mutable_last_report_time() = ToProto(now_ - absl::Seconds(Pick(8)));
  if (Pick(8) == 0) {  // a field this binary does not know, kept by the parser
    google::protobuf::Timestamp& t = *report.mutable_last_report_time();
    t.GetReflection()->MutableUnknownFields(&t)->AddVarint(9, Pick(100));
  }
  for (int i = 0; i < 3; ++i) {
    if (Pick(3) == 0) continue;
    v1::ReleaseStatus& r = *report.add_releases();
    r.set_name(absl::StrCat("app-", i));
    r.set_namespace_("flux-system");
    r.set_phase(static_cast<v1::ReleasePhase>(Pick(6)));
    v1::ReportCondition& c = *r.add_helm_conditions();
    c.set_type("Ready");
    c.set_status(Pick(2) == 0 ? "True" : "False");
    c.set_reason("Reconciled");
  }
  const char* statuses[] = {"True", "True", "False", "Unknown"};
  for (int i = Pick(3); i > 0; --i) {
    v1::PreflightCheck& check = *report.add_preflight_checks();
    check.set_type(absl::StrCat("Check", i));
    check.set_status(statuses[Pick(4)]);
    check.set_reason("Checked");
  }
  return Stored(ReportStream(ns, name), event);
}

int RandomStatusLog::Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

store::RecordedEvent RandomStatusLog::Stored(const std::string& stream, const v1::Event& event) {
  store::RecordedEvent stored = StoredAt(++seq_, stream, event);
  stored.stream_version = ++versions_[stream];
  stored.recorded_at_us = absl::ToUnixMicros(now_);
  return stored;
}

std::string ReportingTally(const projections::StatusProjection& p) {
  std::string text;
  for (const char* status : {"True", "False", "Unknown"}) {
    for (const char* reason : {"ReportReceived", "Stale", "NoReport"}) {
      absl::StrAppend(&text, status, "/", reason, "=", p.reporting().Count(status, reason), " ");
    }
  }
  return text;
}

}  // namespace credledger::testing
