#include "projections/target_status.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rfc3339.h"
#include "projections/clock_skew.h"
#include "projections/condition.h"
#include "projections/proto_time.h"
#include "projections/release_phase.h"

namespace credledger::projections {
namespace {

// Releases named in a ReleasesReady message before "and N more".
constexpr size_t kMaxNamedReleases = 5;

// --- PreflightReady (docs/reports.md, "Rollups") ---

// PreflightReady's status over a report's checks: False when one failed, Unknown when one
// errored or there are none, else True.
const char* PreflightStatus(int checks, bool any_failed, bool any_errored) {
  if (any_failed) return "False";
  if (any_errored || checks == 0) return "Unknown";
  return "True";
}

void UpdatePreflight(v1::TargetStatus& status, absl::Time at) {
  std::vector<std::string> errored, failed;
  const auto& checks = status.last_report().preflight_checks();
  for (const v1::PreflightCheck& check : checks) {
    if (check.status() == "False") {
      failed.push_back(check.type());
    } else if (check.status() != "True") {
      errored.push_back(check.type());  // "Unknown": the check itself could not run
    }
  }
  const std::string errored_text = absl::StrCat("errored: ", absl::StrJoin(errored, ", "));
  const std::string failed_text = absl::StrCat("failed: ", absl::StrJoin(failed, ", "));
  const char* condition_status = PreflightStatus(checks.size(), !failed.empty(), !errored.empty());
  v1::Condition& c = *status.mutable_preflight_ready();
  if (!errored.empty() && !failed.empty()) {
    SetCondition(c, kPreflightReadyCondition, condition_status, "ChecksErroredAndFailed",
                 absl::StrCat(errored_text, "; ", failed_text), at);
  } else if (!failed.empty()) {
    SetCondition(c, kPreflightReadyCondition, condition_status, "ChecksFailed", failed_text, at);
  } else if (!errored.empty()) {
    SetCondition(c, kPreflightReadyCondition, condition_status, "ChecksErrored", errored_text, at);
  } else if (checks.empty()) {
    SetCondition(c, kPreflightReadyCondition, condition_status, "NoChecks",
                 status.has_last_report() ? "the last report has no preflight checks"
                                          : "no report received yet",
                 at);
  } else {
    SetCondition(c, kPreflightReadyCondition, condition_status, "AllChecksPassed",
                 absl::StrCat("all ", checks.size(), " preflight checks passed"), at);
  }
}

// --- Releases rollup and ReleasesReady (docs/reports.md, "Rollups"; bound releases the
// report lacks are Pending, docs/reports.md, "Release phases") ---

// Badness of a phase for ReleasesReady: Failed > Degraded > Pending > Progressing > Ready.
// A phase the fold does not know counts as Progressing (nothing current to judge by).
int Rank(v1::ReleasePhase phase) {
  switch (phase) {
    case v1::RELEASE_PHASE_READY:
      return 0;
    case v1::RELEASE_PHASE_PENDING:
      return 2;
    case v1::RELEASE_PHASE_DEGRADED:
      return 3;
    case v1::RELEASE_PHASE_FAILED:
      return 4;
    default:
      return 1;
  }
}

v1::ReleasePhase PhaseOfRank(int rank) {
  constexpr v1::ReleasePhase kByRank[] = {v1::RELEASE_PHASE_READY, v1::RELEASE_PHASE_PROGRESSING,
                                          v1::RELEASE_PHASE_PENDING, v1::RELEASE_PHASE_DEGRADED,
                                          v1::RELEASE_PHASE_FAILED};
  return kByRank[rank];
}

// The worst rank of an empty list of releases.
constexpr int kNoReleases = -1;

// ReleasesReady's status for the worst rank among the releases: True when all are Ready,
// Unknown up to Pending and when there are none, False for Degraded and Failed.
const char* ReleasesStatus(int worst) {
  return worst == 0 ? "True" : worst <= 2 ? "Unknown" : "False";
}

bool SameRelease(const v1::ReleaseStatus& r, const v1::BoundRelease& b) {
  return r.name() == b.name() && r.namespace_() == b.namespace_();
}

void Count(const v1::ReleaseRollup& r, v1::TargetStatus& status) {
  v1::PhaseCounts& p = *status.mutable_phase_counts();
  switch (r.status().phase()) {
    case v1::RELEASE_PHASE_PENDING:
      p.set_pending(p.pending() + 1);
      break;
    case v1::RELEASE_PHASE_READY:
      p.set_ready(p.ready() + 1);
      break;
    case v1::RELEASE_PHASE_DEGRADED:
      p.set_degraded(p.degraded() + 1);
      break;
    case v1::RELEASE_PHASE_FAILED:
      p.set_failed(p.failed() + 1);
      break;
    default:
      p.set_progressing(p.progressing() + 1);
      break;
  }
  v1::FlagCounts& f = *status.mutable_flag_counts();
  f.set_verified(f.verified() + (r.flags().verified() ? 1 : 0));
  f.set_rolled_back(f.rolled_back() + (r.flags().rolled_back() ? 1 : 0));
  f.set_test_failed(f.test_failed() + (r.flags().test_failed() ? 1 : 0));
  f.set_drifted(f.drifted() + (r.flags().drifted() ? 1 : 0));
}

void UpdateReleasesReady(v1::TargetStatus& status, absl::Time at) {
  v1::Condition& c = *status.mutable_releases_ready();
  if (status.releases().empty()) {
    SetCondition(c, kReleasesReadyCondition, ReleasesStatus(kNoReleases), "NoReleases",
                 "no release reported or bound", at);
    return;
  }
  int worst = 0;
  for (const v1::ReleaseRollup& r : status.releases()) {
    worst = std::max(worst, Rank(r.status().phase()));
  }
  std::vector<std::string> named;
  size_t in_worst = 0;
  for (const v1::ReleaseRollup& r : status.releases()) {
    if (Rank(r.status().phase()) != worst) continue;
    if (++in_worst <= kMaxNamedReleases) {
      named.push_back(absl::StrCat(r.status().namespace_(), "/", r.status().name()));
    }
  }
  const std::string phase = PhaseName(PhaseOfRank(worst));
  std::string message = absl::StrCat(in_worst, " of ", status.releases_size(), " releases ", phase,
                                     ": ", absl::StrJoin(named, ", "));
  if (in_worst > named.size()) absl::StrAppend(&message, " and ", in_worst - named.size(), " more");
  SetCondition(c, kReleasesReadyCondition, ReleasesStatus(worst), phase, message, at);
}

// Rebuilds releases, counts and ReleasesReady from the last report and the bound releases.
void UpdateReleases(v1::TargetStatus& status, absl::Time at) {
  status.clear_releases();
  status.clear_phase_counts();
  status.clear_flag_counts();
  for (const v1::ReleaseStatus& reported : status.last_report().releases()) {
    v1::ReleaseRollup& r = *status.add_releases();
    *r.mutable_status() = reported;
    *r.mutable_flags() = DeriveFlags(reported.source_conditions(), reported.helm_conditions());
    r.set_reported(true);
    r.set_bound(std::any_of(status.bound_releases().begin(), status.bound_releases().end(),
                            [&](const v1::BoundRelease& b) { return SameRelease(reported, b); }));
  }
  for (const v1::BoundRelease& bound : status.bound_releases()) {
    const auto& reported = status.last_report().releases();
    if (std::any_of(reported.begin(), reported.end(),
                    [&](const v1::ReleaseStatus& r) { return SameRelease(r, bound); })) {
      continue;
    }
    v1::ReleaseRollup& r = *status.add_releases();
    r.mutable_status()->set_name(bound.name());
    r.mutable_status()->set_namespace_(bound.namespace_());
    r.mutable_status()->set_phase(v1::RELEASE_PHASE_PENDING);
    r.mutable_flags();
    r.set_bound(true);
  }
  for (const v1::ReleaseRollup& r : status.releases()) Count(r, status);
  UpdateReleasesReady(status, at);
}

// --- Reporting (docs/reports.md, "Rollups", "Liveness and staleness" and "Clock skew") ---

// Sets Reporting True/ReportReceived, unless a clock skew is in force: ClockSkew outranks it.
bool SetReportingTrue(v1::TargetStatus& status, absl::Time at) {
  if (status.has_clock_skew()) return false;
  return SetCondition(*status.mutable_reporting(), kReportingCondition, "True",
                      kReportReceivedReason,
                      absl::StrCat("last report or heartbeat received at ",
                                   common::FormatRfc3339(FromProto(status.last_seen_at()))),
                      at);
}

void StartIncarnation(v1::TargetStatus& status, const v1::TargetRegistered& e, absl::Time at) {
  status.Clear();
  status.set_namespace_(e.namespace_());
  status.set_name(e.name());
  status.set_target_uid(e.target_uid());
  status.set_active(true);
  SetCondition(*status.mutable_reporting(), kReportingCondition, "Unknown", "NoReport",
               "no report received yet", at);
  UpdatePreflight(status, at);
  UpdateReleases(status, at);
}

bool Owns(const v1::TargetStatus& status, const std::string& target_uid) {
  return status.active() && status.target_uid() == target_uid;
}

// Swaps the report of `e` into the status.
void ApplyReport(v1::TargetStatus& status, v1::ReportAccepted& e, absl::Time at) {
  status.mutable_last_report()->Swap(e.mutable_report());
  *status.mutable_last_report_received_at() = e.received_at();
  if (FromProto(e.received_at()) > FromProto(status.last_seen_at())) {
    *status.mutable_last_seen_at() = e.received_at();
  }
  if (FromProto(status.last_report().last_report_time()) > FromProto(status.last_report_time())) {
    *status.mutable_last_report_time() = status.last_report().last_report_time();
  }
  SetReportingTrue(status, at);
  UpdatePreflight(status, at);
  UpdateReleases(status, at);
}

// Sets Reporting False/Stale, unless a clock skew is in force: ClockSkew outranks it.
bool ApplyStale(v1::TargetStatus& status, const v1::ReportingStale& e, absl::Time at) {
  if (status.has_clock_skew()) return false;
  return SetCondition(
      *status.mutable_reporting(), kReportingCondition, "False", "Stale",
      absl::StrCat("no report or heartbeat since ",
                   common::FormatRfc3339(FromProto(e.last_seen_at())), " (stale after ",
                   absl::FormatDuration(absl::Seconds(e.stale_after_seconds())), ")"),
      at);
}

void ApplyClockSkew(v1::TargetStatus& status, const v1::ReportClockSkewDetected& e, absl::Time at) {
  *status.mutable_clock_skew() = e;
  SetCondition(*status.mutable_reporting(), kReportingCondition, "False", kClockSkewReason,
               ClockSkewMessage(e), at);
}

// Folds a report or heartbeat received at `received_at` with `last_report_time`: both times
// advance when later, and Reporting becomes True/ReportReceived (SetReportingTrue; its
// message, naming last_seen_at, is rewritten only when a time moved or Reporting was something
// else). Returns whether anything changed.
bool See(v1::TargetStatus& status, const google::protobuf::Timestamp& received_at,
         const google::protobuf::Timestamp& last_report_time, absl::Time at) {
  bool changed = false;
  if (FromProto(received_at) > FromProto(status.last_seen_at())) {
    *status.mutable_last_seen_at() = received_at;
    changed = true;
  }
  if (FromProto(last_report_time) > FromProto(status.last_report_time())) {
    *status.mutable_last_report_time() = last_report_time;
    changed = true;
  }
  // True/ReportReceived's message names last_seen_at, so it changes only with it; a fold that
  // defers reports (FoldReportSummary) leaves the message for later and relies on this.
  if ((changed || !IsReportReceived(status.reporting())) && SetReportingTrue(status, at)) {
    changed = true;
  }
  return changed;
}

// The event kinds Apply folds; it returns false for every other kind.
constexpr v1::Event::KindCase kStatusKinds[] = {
    v1::Event::kTargetRegistered,        v1::Event::kTargetFinalized,
    v1::Event::kReportAccepted,          v1::Event::kReportingStale,
    v1::Event::kBoundReleasesSet,        v1::Event::kLivenessObserved,
    v1::Event::kReportClockSkewDetected, v1::Event::kReportClockSkewCleared};

// Folds `event` into `status` (a report is swapped out of it); returns whether the status
// changed. The cases that can return true are those of kStatusKinds.
bool Apply(v1::TargetStatus& status, v1::Event& event, const EventPosition& at) {
  switch (event.kind_case()) {
    case v1::Event::kServiceConfigured:
    case v1::Event::kTargetDeletionRequested:
    case v1::Event::kRotationRequested:
    case v1::Event::kTargetRevoked:
    case v1::Event::kRevocationLifted:
    case v1::Event::kRolloutConfirmed:
    case v1::Event::kCredentialMintRequested:
    case v1::Event::kStaleCredentialsDeleted:
    case v1::Event::kCredentialSecretCreated:
    case v1::Event::kCredentialIssued:
    case v1::Event::kCredentialMintFailed:
    case v1::Event::kCredentialMintAbandoned:
    case v1::Event::kCredentialSecretDeleted:
    case v1::Event::kCredentialSecretDeletedExternally:
    case v1::Event::kIdentityObjectsWritten:
    case v1::Event::kIdentityCreated:
    case v1::Event::kIdentityUpdated:
    case v1::Event::kIdentityDeleted:
    case v1::Event::kIdentityBound:
    case v1::Event::kIdentityUnbound:
    case v1::Event::kSourceSecretObserved:
    case v1::Event::kNamespaceLabelsObserved:
    case v1::Event::kMirrorWritten:
    case v1::Event::kMirrorDeleted:
    case v1::Event::kMirrorDeletedExternally:
    case v1::Event::kBoundObjectGone:
    case v1::Event::kClusterRegistered:
    case v1::Event::kClusterSpecChanged:
    case v1::Event::kClusterDeregistered:
    case v1::Event::kClusterProbed:
    case v1::Event::kSourceVerified:
    case v1::Event::kCallsDenied:
    case v1::Event::kLogAdopted:
    case v1::Event::kMirrorFailed:
    case v1::Event::KIND_NOT_SET:
      return false;  // credential lifecycle: not part of the report rollup
    case v1::Event::kTargetRegistered:
      if (Owns(status, event.target_registered().target_uid())) return false;
      StartIncarnation(status, event.target_registered(), at.recorded_at);
      return true;
    case v1::Event::kTargetFinalized:
      if (!Owns(status, event.target_finalized().target_uid())) return false;
      status.set_active(false);
      return true;
    case v1::Event::kReportAccepted:
      if (!Owns(status, event.report_accepted().target_uid())) return false;
      ApplyReport(status, *event.mutable_report_accepted(), at.recorded_at);
      return true;
    case v1::Event::kReportingStale:
      if (!Owns(status, event.reporting_stale().target_uid())) return false;
      return ApplyStale(status, event.reporting_stale(), at.recorded_at);
    case v1::Event::kReportClockSkewDetected:
      if (!Owns(status, event.report_clock_skew_detected().target_uid())) return false;
      ApplyClockSkew(status, event.report_clock_skew_detected(), at.recorded_at);
      return true;
    case v1::Event::kReportClockSkewCleared: {
      const v1::ReportClockSkewCleared& e = event.report_clock_skew_cleared();
      if (!Owns(status, e.target_uid())) return false;
      status.clear_clock_skew();
      See(status, e.received_at(), e.last_report_time(), at.recorded_at);
      return true;
    }
    case v1::Event::kBoundReleasesSet: {
      const v1::BoundReleasesSet& e = event.bound_releases_set();
      if (!Owns(status, e.target_uid()) || SameBoundReleases(status, e)) return false;
      *status.mutable_bound_releases() = e.releases();
      status.set_bootstrap_version(e.bootstrap_version());
      UpdateReleases(status, at.recorded_at);
      return true;
    }
    case v1::Event::kLivenessObserved: {
      const int64_t before = status.last_seq();
      for (const v1::LivenessEntry& entry : event.liveness_observed().entries()) {
        if (entry.namespace_() == status.namespace_() && entry.name() == status.name()) {
          ApplyLiveness(status, entry, at);
        }
      }
      return status.last_seq() != before;  // ApplyLiveness sets last_seq itself
    }
  }
  return false;
}

}  // namespace

void EvolveStatus(v1::TargetStatus& status, v1::Event& event, const EventPosition& at) {
  if (Apply(status, event, at)) status.set_last_seq(at.seq);
}

void ApplyLiveness(v1::TargetStatus& status, const v1::LivenessEntry& entry,
                   const EventPosition& at) {
  if (!Owns(status, entry.target_uid())) return;
  if (See(status, entry.received_at(), entry.last_report_time(), at.recorded_at)) {
    status.set_last_seq(at.seq);
  }
}

bool SameBoundReleases(const v1::TargetStatus& status, const v1::BoundReleasesSet& set) {
  if (status.bootstrap_version() != set.bootstrap_version() ||
      status.bound_releases_size() != set.releases_size()) {
    return false;
  }
  for (int i = 0; i < set.releases_size(); ++i) {
    const v1::BoundRelease& a = status.bound_releases(i);
    const v1::BoundRelease& b = set.releases(i);
    if (a.name() != b.name() || a.namespace_() != b.namespace_()) return false;
  }
  return true;
}

bool FoldReportSummary(v1::TargetStatus& status, const ReportSummary& summary,
                       const EventPosition& at, std::optional<ReportRun>& run) {
  if (!Owns(status, summary.target_uid)) return false;
  if (!run.has_value()) {
    run = ReportRun{at, status.preflight_ready().status(),
                    FromProto(status.preflight_ready().last_transition_time()),
                    status.releases_ready().status(),
                    FromProto(status.releases_ready().last_transition_time())};
  }
  run->last_at = at;
  // As ApplyReport, except for the report itself and the conditions' reasons and messages.
  *status.mutable_last_report_received_at() = summary.received_at;
  if (FromProto(summary.received_at) > FromProto(status.last_seen_at())) {
    *status.mutable_last_seen_at() = summary.received_at;
  }
  if (FromProto(summary.last_report_time) > FromProto(status.last_report_time())) {
    *status.mutable_last_report_time() = summary.last_report_time;
  }
  // Reporting's status, reason and transition time as SetReportingTrue sets them; its message
  // (formatted from last_seen_at) is written once, by FinishReportRun. A registered Target's
  // Reporting has its type and a transition time, so one already True/ReportReceived stays,
  // and so does False/ClockSkew while a clock skew is in force (SetReportingTrue).
  v1::Condition& reporting = *status.mutable_reporting();
  if (!IsReportReceived(reporting) && !status.has_clock_skew()) {
    SetCondition(reporting, kReportingCondition, "True", kReportReceivedReason, reporting.message(),
                 at.recorded_at);
  }
  const absl::string_view preflight =
      PreflightStatus(summary.checks, summary.any_check_failed, summary.any_check_errored);
  if (run->preflight_status != preflight) {
    run->preflight_status = std::string(preflight);
    run->preflight_since = at.recorded_at;
  }
  // As UpdateReleases: the reported releases, then the bound ones the report lacks (Pending).
  int worst = kNoReleases;
  for (const ReportSummary::Release& r : summary.releases) worst = std::max(worst, Rank(r.phase));
  for (const v1::BoundRelease& bound : status.bound_releases()) {
    if (std::none_of(summary.releases.begin(), summary.releases.end(),
                     [&](const ReportSummary::Release& r) {
                       return r.name == bound.name() && r.namespace_ == bound.namespace_();
                     })) {
      worst = std::max(worst, Rank(v1::RELEASE_PHASE_PENDING));
    }
  }
  const absl::string_view releases = ReleasesStatus(worst);
  if (run->releases_status != releases) {
    run->releases_status = std::string(releases);
    run->releases_since = at.recorded_at;
  }
  status.set_last_seq(at.seq);
  return true;
}

void FinishReportRun(v1::TargetStatus& status, v1::Event& event, const ReportRun& run) {
  const int64_t last_seq = status.last_seq();  // a liveness entry may have come after the run
  EvolveStatus(status, event, run.last_at);
  status.set_last_seq(last_seq);
  *status.mutable_preflight_ready()->mutable_last_transition_time() = ToProto(run.preflight_since);
  *status.mutable_releases_ready()->mutable_last_transition_time() = ToProto(run.releases_since);
}

bool ChangesStatus(absl::string_view type) {
  static const absl::flat_hash_set<std::string>* const types = [] {
    auto* names = new absl::flat_hash_set<std::string>();
    for (v1::Event::KindCase kind : kStatusKinds) {
      names->insert(v1::Event::descriptor()->FindFieldByNumber(kind)->message_type()->full_name());
    }
    return names;
  }();
  return types->contains(type);
}

}  // namespace credledger::projections
