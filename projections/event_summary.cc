// The sentence and the subject fields of each event kind (event_summary.h): one DescribeKind
// overload per kind, and DescribeEvent choosing among them.
#include "projections/event_summary.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rfc3339.h"
#include "projections/clock_skew.h"
#include "projections/credential_lifetimes.h"
#include "projections/identity_summary.h"
#include "projections/proto_time.h"
#include "projections/release_phase.h"
#include "projections/target_state.h"

namespace credledger::projections {
namespace {

std::string Rfc3339(const google::protobuf::Timestamp& t) {
  return common::FormatRfc3339(FromProto(t));
}

std::string MintReasonWords(const v1::CredentialMintRequested& e) {
  switch (e.reason()) {
    case v1::MINT_REASON_INITIAL:
      return "first credential";
    case v1::MINT_REASON_ROTATION_REQUESTED:
      return absl::StrCat("rotation requested (value \"", e.request_value(), "\")");
    case v1::MINT_REASON_ROTATION_DUE:
      return "rotation due";
    case v1::MINT_REASON_REPLACEMENT:
      return "replacement";
    case v1::MINT_REASON_REVOCATION_LIFTED:
      return "revocation lifted";
    default:  // an enum switch: proto3 enums carry sentinel values
      return "reason unspecified";
  }
}

std::string MintStageWords(v1::MintStage stage) {
  switch (stage) {
    case v1::MINT_STAGE_IDENTITY:
      return "identity";
    case v1::MINT_STAGE_SECRET_CREATE:
      return "Secret creation";
    case v1::MINT_STAGE_TOKEN_REQUEST:
      return "token request";
    case v1::MINT_STAGE_SECRET_UPDATE:
      return "Secret update";
    case v1::MINT_STAGE_RECOVERY:
      return "recovery";
    default:
      return "an unspecified stage";
  }
}

// "mint m3" for an attempt, "mint" for a failure outside one.
std::string Mint(const std::string& attempt_id) {
  return attempt_id.empty() ? "mint" : absl::StrCat("mint ", attempt_id);
}

// "3 releases (2 Ready, 1 Progressing)", phases from best to worst as ReleasesReady ranks
// them.
std::string ReleaseWords(const v1::TargetReportSpec& report) {
  constexpr v1::ReleasePhase kOrder[] = {v1::RELEASE_PHASE_READY, v1::RELEASE_PHASE_PROGRESSING,
                                         v1::RELEASE_PHASE_PENDING, v1::RELEASE_PHASE_DEGRADED,
                                         v1::RELEASE_PHASE_FAILED};
  std::vector<std::string> phases;
  for (v1::ReleasePhase phase : kOrder) {
    int n = 0;
    for (const v1::ReleaseStatus& r : report.releases()) n += r.phase() == phase ? 1 : 0;
    if (n > 0) phases.push_back(absl::StrCat(n, " ", PhaseName(phase)));
  }
  const int releases = report.releases_size();
  return releases == 0 ? "no releases"
                       : absl::StrCat(releases, releases == 1 ? " release" : " releases", " (",
                                      absl::StrJoin(phases, ", "), ")");
}

// ReleaseWords, then the preflight results when the report has checks.
std::string ReportWords(const v1::TargetReportSpec& report) {
  std::string words = ReleaseWords(report);
  if (report.preflight_checks().empty()) return words;
  int passed = 0, failed = 0, errored = 0;
  for (const v1::PreflightCheck& c : report.preflight_checks()) {
    if (c.status() == "True") {
      ++passed;
    } else if (c.status() == "False") {
      ++failed;
    } else {
      ++errored;
    }
  }
  return absl::StrCat(words, ", preflight ", passed, " passed, ", failed, " failed, ", errored,
                      " errored");
}

std::string StaleSecretWords(const v1::StaleCredentialsDeleted& e) {
  std::vector<std::string> secrets;
  for (int i = 0; i < e.secrets_size(); ++i) {
    const std::string label = i < e.secret_target_uids_size() ? e.secret_target_uids(i) : "";
    secrets.push_back(absl::StrCat(e.secrets(i).name(),
                                   label.empty() ? " (no target-uid label" : " (target-uid label ",
                                   label, ")"));
  }
  std::string words = e.secrets_size() == 1
                          ? absl::StrCat("stale Secret ", secrets[0], " deleted")
                          : absl::StrCat(e.secrets_size(),
                                         " stale Secrets deleted: ", absl::StrJoin(secrets, ", "));
  if (!e.attempt_id().empty()) absl::StrAppend(&words, " before mint ", e.attempt_id());
  return words;
}

void SetSecret(v1::TimelineEntry& entry, const v1::SecretRef& secret) {
  entry.set_secret_name(secret.name());
  entry.set_credential_tag(CredentialTag(secret.uid()));
}

// ---- Events about the service, its clusters and its callers: a summary only ----

void DescribeKind(const v1::ClusterRegistered& e, v1::TimelineEntry& entry) {
  entry.set_summary(absl::StrCat("cluster ", e.name(), " registered"));
}

void DescribeKind(const v1::ClusterProbed& e, v1::TimelineEntry& entry) {
  entry.set_summary(absl::StrCat("cluster probed: ", e.reason()));
}

void DescribeKind(const v1::SourceVerified& e, v1::TimelineEntry& entry) {
  entry.set_summary(absl::StrCat("source ", e.url(), " verified: ", e.reason()));
}

void DescribeKind(const v1::CallsDenied& e, v1::TimelineEntry& entry) {
  int64_t calls = 0;
  for (const v1::DeniedRpc& rpc : e.rpcs()) calls += rpc.count();
  entry.set_summary(e.identity().empty()
                        ? absl::StrCat(calls, " calls of ", e.identities(),
                                       " other identities denied")
                        : absl::StrCat(calls, " calls of ", e.identity(), " denied"));
}

void DescribeKind(const v1::LogAdopted& e, v1::TimelineEntry& entry) {
  entry.set_summary(absl::StrCat("log adopted at seq ", e.head_seq(), " by ", e.adopted_by(), ": ",
                                 e.reason()));
}

void DescribeKind(const v1::ServiceConfigured& e, v1::TimelineEntry& entry) {
  entry.set_summary(e.credentials_enabled() ? "service configured: credentials enabled"
                                            : "service configured: credentials disabled");
}

// ---- A Target's lifecycle ----

void DescribeKind(const v1::TargetRegistered& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("registered (uid ", entry.target_uid(), ")"));
}

void DescribeKind(const v1::TargetDeletionRequested& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary("deletion requested");
}

void DescribeKind(const v1::TargetFinalized& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(
      e.deleted_objects().empty()
          ? "finalized (nothing left to delete)"
          : absl::StrCat("finalized: deleted ", absl::StrJoin(e.deleted_objects(), ", ")));
}

void DescribeKind(const v1::RotationRequested& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("rotation requested (value \"", e.request_value(), "\")"));
}

void DescribeKind(const v1::TargetRevoked& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(e.reason().empty() ? "revoked (no reason given)"
                                       : absl::StrCat("revoked: ", e.reason()));
}

void DescribeKind(const v1::RevocationLifted& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary("revocation lifted");
}

void DescribeKind(const v1::RolloutConfirmed& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_credential_tag(e.credential_tag());
  std::string summary = absl::StrCat("rollout confirmed at revision ", e.revision());
  if (!e.released_secrets().empty()) {
    absl::StrAppend(&summary, "; releases ", absl::StrJoin(e.released_secrets(), ", "));
  }
  entry.set_summary(summary);
}

// ---- Minting and the credential Secrets ----

void DescribeKind(const v1::CredentialMintRequested& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_attempt_id(e.attempt_id());
  entry.set_summary(absl::StrCat(Mint(e.attempt_id()), " requested: ", MintReasonWords(e)));
}

void DescribeKind(const v1::StaleCredentialsDeleted& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_attempt_id(e.attempt_id());
  if (e.secrets_size() == 1) SetSecret(entry, e.secrets(0));
  entry.set_summary(StaleSecretWords(e));
}

void DescribeKind(const v1::CredentialSecretCreated& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_attempt_id(e.attempt_id());
  SetSecret(entry, e.secret());
  entry.set_summary(absl::StrCat("Secret ", e.secret().name(), " created for ", e.attempt_id()));
}

void DescribeKind(const v1::CredentialIssued& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_attempt_id(e.attempt_id());
  entry.set_secret_name(e.secret().name());
  entry.set_credential_tag(e.credential_tag());
  entry.set_summary(absl::StrCat("credential issued: Secret ", e.secret().name(), ", tag ",
                                 e.credential_tag(), ", expires ", Rfc3339(e.expires_at()),
                                 e.adopted() ? " (token adopted after a restart)" : ""));
}

void DescribeKind(const v1::CredentialMintFailed& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_attempt_id(e.attempt_id());
  std::string summary = absl::StrCat(Mint(e.attempt_id()), " failed at ",
                                     MintStageWords(e.stage()), ": ", e.message());
  if (e.has_deleted_secret()) {
    SetSecret(entry, e.deleted_secret());
    absl::StrAppend(&summary, "; Secret ", e.deleted_secret().name(), " deleted again");
  }
  entry.set_summary(summary);
}

void DescribeKind(const v1::CredentialMintAbandoned& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_attempt_id(e.attempt_id());
  entry.set_summary(absl::StrCat(Mint(e.attempt_id()), " abandoned: ", e.reason()));
}

void DescribeKind(const v1::CredentialSecretDeleted& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  SetSecret(entry, e.secret());
  entry.set_summary(absl::StrCat("Secret ", e.secret().name(), " deleted (",
                                 DeletionReasonWords(e.reason()), ")"));
}

void DescribeKind(const v1::CredentialSecretDeletedExternally& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  SetSecret(entry, e.secret());
  entry.set_summary(absl::StrCat("Secret ", e.secret().name(),
                                 " deleted outside credledger (observed ",
                                 Rfc3339(e.observed_at()), ")"));
}

void DescribeKind(const v1::IdentityObjectsWritten& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("identity objects written: ", absl::StrJoin(e.writes(), ", ")));
}

// ---- Reports and liveness ----

void DescribeKind(const v1::ReportAccepted& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("report accepted: ", ReportWords(e.report())));
}

void DescribeKind(const v1::ReportingStale& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("reporting stale: silent since ", Rfc3339(e.last_seen_at()),
                                 " (stale after ", e.stale_after_seconds(), "s)"));
}

void DescribeKind(const v1::ReportClockSkewDetected& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("clock skew detected: ", ClockSkewMessage(e)));
}

void DescribeKind(const v1::ReportClockSkewCleared& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("clock skew cleared: a report or heartbeat of ",
                                 Rfc3339(e.last_report_time()), " was accepted (received ",
                                 Rfc3339(e.received_at()), ")"));
}

void DescribeKind(const v1::BoundReleasesSet& e, v1::TimelineEntry& entry) {
  entry.set_target_uid(e.target_uid());
  entry.set_summary(absl::StrCat("bound releases set (", e.releases_size(),
                                 e.bootstrap_version().empty() ? "" : ", bootstrap version ",
                                 e.bootstrap_version(), ")"));
}

void DescribeKind(const v1::LivenessObserved& e, v1::TimelineEntry& entry) {
  entry.set_summary(absl::StrCat("liveness batch of ", e.entries_size(), " heartbeats"));
}

}  // namespace

void DescribeEvent(const v1::Event& event, v1::TimelineEntry& entry) {
  switch (event.kind_case()) {
    case v1::Event::KIND_NOT_SET:
      return entry.set_summary("empty event");
    case v1::Event::kClusterRegistered:
      return DescribeKind(event.cluster_registered(), entry);
    case v1::Event::kClusterSpecChanged:
      return entry.set_summary("cluster spec changed");
    case v1::Event::kClusterDeregistered:
      return entry.set_summary("cluster deregistered");
    case v1::Event::kClusterProbed:
      return DescribeKind(event.cluster_probed(), entry);
    case v1::Event::kSourceVerified:
      return DescribeKind(event.source_verified(), entry);
    case v1::Event::kCallsDenied:
      return DescribeKind(event.calls_denied(), entry);
    case v1::Event::kLogAdopted:
      return DescribeKind(event.log_adopted(), entry);
    case v1::Event::kServiceConfigured:
      return DescribeKind(event.service_configured(), entry);
    case v1::Event::kTargetRegistered:
      return DescribeKind(event.target_registered(), entry);
    case v1::Event::kTargetDeletionRequested:
      return DescribeKind(event.target_deletion_requested(), entry);
    case v1::Event::kTargetFinalized:
      return DescribeKind(event.target_finalized(), entry);
    case v1::Event::kRotationRequested:
      return DescribeKind(event.rotation_requested(), entry);
    case v1::Event::kTargetRevoked:
      return DescribeKind(event.target_revoked(), entry);
    case v1::Event::kRevocationLifted:
      return DescribeKind(event.revocation_lifted(), entry);
    case v1::Event::kRolloutConfirmed:
      return DescribeKind(event.rollout_confirmed(), entry);
    case v1::Event::kCredentialMintRequested:
      return DescribeKind(event.credential_mint_requested(), entry);
    case v1::Event::kStaleCredentialsDeleted:
      return DescribeKind(event.stale_credentials_deleted(), entry);
    case v1::Event::kCredentialSecretCreated:
      return DescribeKind(event.credential_secret_created(), entry);
    case v1::Event::kCredentialIssued:
      return DescribeKind(event.credential_issued(), entry);
    case v1::Event::kCredentialMintFailed:
      return DescribeKind(event.credential_mint_failed(), entry);
    case v1::Event::kCredentialMintAbandoned:
      return DescribeKind(event.credential_mint_abandoned(), entry);
    case v1::Event::kCredentialSecretDeleted:
      return DescribeKind(event.credential_secret_deleted(), entry);
    case v1::Event::kCredentialSecretDeletedExternally:
      return DescribeKind(event.credential_secret_deleted_externally(), entry);
    case v1::Event::kIdentityObjectsWritten:
      return DescribeKind(event.identity_objects_written(), entry);
    case v1::Event::kReportAccepted:
      return DescribeKind(event.report_accepted(), entry);
    case v1::Event::kReportingStale:
      return DescribeKind(event.reporting_stale(), entry);
    case v1::Event::kReportClockSkewDetected:
      return DescribeKind(event.report_clock_skew_detected(), entry);
    case v1::Event::kReportClockSkewCleared:
      return DescribeKind(event.report_clock_skew_cleared(), entry);
    case v1::Event::kBoundReleasesSet:
      return DescribeKind(event.bound_releases_set(), entry);
    case v1::Event::kLivenessObserved:
      return DescribeKind(event.liveness_observed(), entry);
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
    case v1::Event::kMirrorFailed:
      return entry.set_summary(SummarizeIdentityEvent(event));
  }
}

std::string SummarizeEvent(const v1::Event& event) {
  v1::TimelineEntry entry;
  DescribeEvent(event, entry);
  return entry.summary();
}

}  // namespace credledger::projections
