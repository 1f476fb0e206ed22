#include "projections/timeline.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rfc3339.h"
#include "common/status_macros.h"
#include "projections/credential_lifetimes.h"
#include "projections/identity_state.h"
#include "projections/identity_summary.h"
#include "projections/proto_time.h"
#include "projections/release_phase.h"
#include "projections/report_streams.h"
#include "projections/target_state.h"
#include "store/event_codec.h"

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
// them; then the preflight results when the report has checks.
std::string ReportWords(const v1::TargetReportSpec& report) {
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
  std::string words = releases == 0
                          ? "no releases"
                          : absl::StrCat(releases, releases == 1 ? " release" : " releases", " (",
                                         absl::StrJoin(phases, ", "), ")");
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

// Sets the summary and the subject fields (target_uid, Secret and its tag, attempt) of
// `entry` from `event`. A Secret's tag is the credentialTag of its uid by definition
// (docs/credentials.md, "Credential tag and connection hash"), so every event about one
// Secret carries it.
void Describe(const v1::Event& event, v1::TimelineEntry& entry) {
  switch (event.kind_case()) {
    case v1::Event::KIND_NOT_SET:
      entry.set_summary("empty event");
      return;
    case v1::Event::kClusterRegistered:
      entry.set_summary(absl::StrCat("cluster ", event.cluster_registered().name(),
                                     " registered"));
      return;
    case v1::Event::kClusterSpecChanged:
      entry.set_summary("cluster spec changed");
      return;
    case v1::Event::kClusterDeregistered:
      entry.set_summary("cluster deregistered");
      return;
    case v1::Event::kClusterProbed:
      entry.set_summary(absl::StrCat("cluster probed: ", event.cluster_probed().reason()));
      return;
    case v1::Event::kSourceVerified:
      entry.set_summary(absl::StrCat("source ", event.source_verified().url(), " verified: ",
                                     event.source_verified().reason()));
      return;
    case v1::Event::kCallsDenied: {
      const v1::CallsDenied& e = event.calls_denied();
      int64_t calls = 0;
      for (const v1::DeniedRpc& rpc : e.rpcs()) calls += rpc.count();
      entry.set_summary(e.identity().empty()
                            ? absl::StrCat(calls, " calls of ", e.identities(),
                                           " other identities denied")
                            : absl::StrCat(calls, " calls of ", e.identity(), " denied"));
      return;
    }
    case v1::Event::kServiceConfigured:
      entry.set_summary(event.service_configured().credentials_enabled()
                            ? "service configured: credentials enabled"
                            : "service configured: credentials disabled");
      return;
    case v1::Event::kTargetRegistered:
      entry.set_target_uid(event.target_registered().target_uid());
      entry.set_summary(absl::StrCat("registered (uid ", entry.target_uid(), ")"));
      return;
    case v1::Event::kTargetDeletionRequested:
      entry.set_target_uid(event.target_deletion_requested().target_uid());
      entry.set_summary("deletion requested");
      return;
    case v1::Event::kTargetFinalized: {
      const v1::TargetFinalized& e = event.target_finalized();
      entry.set_target_uid(e.target_uid());
      entry.set_summary(
          e.deleted_objects().empty()
              ? "finalized (nothing left to delete)"
              : absl::StrCat("finalized: deleted ", absl::StrJoin(e.deleted_objects(), ", ")));
      return;
    }
    case v1::Event::kRotationRequested:
      entry.set_target_uid(event.rotation_requested().target_uid());
      entry.set_summary(absl::StrCat("rotation requested (value \"",
                                     event.rotation_requested().request_value(), "\")"));
      return;
    case v1::Event::kTargetRevoked: {
      const v1::TargetRevoked& e = event.target_revoked();
      entry.set_target_uid(e.target_uid());
      entry.set_summary(e.reason().empty() ? "revoked (no reason given)"
                                           : absl::StrCat("revoked: ", e.reason()));
      return;
    }
    case v1::Event::kRevocationLifted:
      entry.set_target_uid(event.revocation_lifted().target_uid());
      entry.set_summary("revocation lifted");
      return;
    case v1::Event::kRolloutConfirmed: {
      const v1::RolloutConfirmed& e = event.rollout_confirmed();
      entry.set_target_uid(e.target_uid());
      entry.set_credential_tag(e.credential_tag());
      std::string summary = absl::StrCat("rollout confirmed at revision ", e.revision());
      if (!e.released_secrets().empty()) {
        absl::StrAppend(&summary, "; releases ", absl::StrJoin(e.released_secrets(), ", "));
      }
      entry.set_summary(summary);
      return;
    }
    case v1::Event::kCredentialMintRequested: {
      const v1::CredentialMintRequested& e = event.credential_mint_requested();
      entry.set_target_uid(e.target_uid());
      entry.set_attempt_id(e.attempt_id());
      entry.set_summary(absl::StrCat(Mint(e.attempt_id()), " requested: ", MintReasonWords(e)));
      return;
    }
    case v1::Event::kStaleCredentialsDeleted: {
      const v1::StaleCredentialsDeleted& e = event.stale_credentials_deleted();
      entry.set_target_uid(e.target_uid());
      entry.set_attempt_id(e.attempt_id());
      if (e.secrets_size() == 1) SetSecret(entry, e.secrets(0));
      entry.set_summary(StaleSecretWords(e));
      return;
    }
    case v1::Event::kCredentialSecretCreated: {
      const v1::CredentialSecretCreated& e = event.credential_secret_created();
      entry.set_target_uid(e.target_uid());
      entry.set_attempt_id(e.attempt_id());
      SetSecret(entry, e.secret());
      entry.set_summary(
          absl::StrCat("Secret ", e.secret().name(), " created for ", e.attempt_id()));
      return;
    }
    case v1::Event::kCredentialIssued: {
      const v1::CredentialIssued& e = event.credential_issued();
      entry.set_target_uid(e.target_uid());
      entry.set_attempt_id(e.attempt_id());
      entry.set_secret_name(e.secret().name());
      entry.set_credential_tag(e.credential_tag());
      entry.set_summary(absl::StrCat("credential issued: Secret ", e.secret().name(), ", tag ",
                                     e.credential_tag(), ", expires ", Rfc3339(e.expires_at()),
                                     e.adopted() ? " (token adopted after a restart)" : ""));
      return;
    }
    case v1::Event::kCredentialMintFailed: {
      const v1::CredentialMintFailed& e = event.credential_mint_failed();
      entry.set_target_uid(e.target_uid());
      entry.set_attempt_id(e.attempt_id());
      std::string summary = absl::StrCat(Mint(e.attempt_id()), " failed at ",
                                         MintStageWords(e.stage()), ": ", e.message());
      if (e.has_deleted_secret()) {
        SetSecret(entry, e.deleted_secret());
        absl::StrAppend(&summary, "; Secret ", e.deleted_secret().name(), " deleted again");
      }
      entry.set_summary(summary);
      return;
    }
    case v1::Event::kCredentialMintAbandoned: {
      const v1::CredentialMintAbandoned& e = event.credential_mint_abandoned();
      entry.set_target_uid(e.target_uid());
      entry.set_attempt_id(e.attempt_id());
      entry.set_summary(absl::StrCat(Mint(e.attempt_id()), " abandoned: ", e.reason()));
      return;
    }
    case v1::Event::kCredentialSecretDeleted: {
      const v1::CredentialSecretDeleted& e = event.credential_secret_deleted();
      entry.set_target_uid(e.target_uid());
      SetSecret(entry, e.secret());
      entry.set_summary(absl::StrCat("Secret ", e.secret().name(), " deleted (",
                                     DeletionReasonWords(e.reason()), ")"));
      return;
    }
    case v1::Event::kCredentialSecretDeletedExternally: {
      const v1::CredentialSecretDeletedExternally& e = event.credential_secret_deleted_externally();
      entry.set_target_uid(e.target_uid());
      SetSecret(entry, e.secret());
      entry.set_summary(absl::StrCat("Secret ", e.secret().name(),
                                     " deleted outside credledger (observed ",
                                     Rfc3339(e.observed_at()), ")"));
      return;
    }
    case v1::Event::kIdentityObjectsWritten: {
      const v1::IdentityObjectsWritten& e = event.identity_objects_written();
      entry.set_target_uid(e.target_uid());
      entry.set_summary(
          absl::StrCat("identity objects written: ", absl::StrJoin(e.writes(), ", ")));
      return;
    }
    case v1::Event::kReportAccepted:
      entry.set_target_uid(event.report_accepted().target_uid());
      entry.set_summary(
          absl::StrCat("report accepted: ", ReportWords(event.report_accepted().report())));
      return;
    case v1::Event::kReportingStale: {
      const v1::ReportingStale& e = event.reporting_stale();
      entry.set_target_uid(e.target_uid());
      entry.set_summary(absl::StrCat("reporting stale: silent since ", Rfc3339(e.last_seen_at()),
                                     " (stale after ", e.stale_after_seconds(), "s)"));
      return;
    }
    case v1::Event::kBoundReleasesSet: {
      const v1::BoundReleasesSet& e = event.bound_releases_set();
      entry.set_target_uid(e.target_uid());
      entry.set_summary(absl::StrCat("bound releases set (", e.releases_size(),
                                     e.bootstrap_version().empty() ? "" : ", bootstrap version ",
                                     e.bootstrap_version(), ")"));
      return;
    }
    case v1::Event::kLivenessObserved:
      entry.set_summary(absl::StrCat("liveness batch of ", event.liveness_observed().entries_size(),
                                     " heartbeats"));
      return;
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
    case v1::Event::kMirrorFailed:
      entry.set_summary(SummarizeIdentityEvent(event));
      return;
  }
}

// "credledger.v1.CredentialIssued" -> "CredentialIssued".
std::string ShortType(absl::string_view type) {
  const size_t dot = type.rfind('.');
  return std::string(dot == absl::string_view::npos ? type : type.substr(dot + 1));
}

// `text` with bytes below 0x20 and 0x7f written as "\xNN".
std::string OneLine(absl::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

TimelineBuilder::TimelineBuilder(std::string target_namespace, std::string name)
    : TimelineBuilder(target_namespace, name, TargetStream(target_namespace, name),
                      ReportStream(target_namespace, name)) {}

TimelineBuilder TimelineBuilder::ForIdentity(const std::string& identity) {
  // No liveness entry has an empty namespace, and no stream is named "".
  return TimelineBuilder("", identity, IdentityStream(identity), "");
}

TimelineBuilder::TimelineBuilder(std::string target_namespace, std::string name,
                                 std::string own_stream, std::string report_stream)
    : namespace_(std::move(target_namespace)),
      name_(std::move(name)),
      target_stream_(std::move(own_stream)),
      report_stream_(std::move(report_stream)) {}

absl::StatusOr<std::optional<v1::TimelineEntry>> TimelineBuilder::Apply(
    const store::RecordedEvent& recorded) {
  const bool own = recorded.stream == target_stream_ || recorded.stream == report_stream_;
  if (!own && recorded.stream != kLivenessStream) return std::nullopt;
  ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
  ASSIGN_OR_RETURN(v1::EventMetadata metadata, store::EventCodec::DecodeMetadata(recorded));
  v1::TimelineEntry entry;
  if (own) {
    Describe(event, entry);
    NameCluster(event, entry);
    // A ReportingStale opens a silence; a report ends it; a new incarnation or a finalization
    // leaves none open.
    if (event.has_reporting_stale()) {
      silent_ = true;
    } else if (event.has_report_accepted() || event.has_target_registered() ||
               event.has_target_finalized()) {
      silent_ = false;
    }
  } else {
    const v1::LivenessEntry* heartbeat = nullptr;
    for (const v1::LivenessEntry& e : event.liveness_observed().entries()) {
      if (e.namespace_() == namespace_ && e.name() == name_) heartbeat = &e;
    }
    if (heartbeat == nullptr || !silent_) return std::nullopt;
    silent_ = false;
    entry.set_target_uid(heartbeat->target_uid());
    entry.set_summary("heartbeat received: reporting again");
  }
  entry.set_seq(recorded.seq);
  *entry.mutable_recorded_at() = ToProto(absl::FromUnixMicros(recorded.recorded_at_us));
  entry.set_stream(recorded.stream);
  entry.set_actor(metadata.actor());
  entry.set_request_id(metadata.request_id());
  entry.set_event_type(ShortType(recorded.type));
  return entry;
}

void TimelineBuilder::NameCluster(const v1::Event& event, v1::TimelineEntry& entry) {
  if (event.has_identity_created()) cluster_ = event.identity_created().spec().cluster();
  if (event.has_identity_updated()) cluster_ = event.identity_updated().spec().cluster();
  if (cluster_.empty()) return;
  const bool cluster_failure =
      event.has_mirror_failed() &&
      (event.mirror_failed().kind() == v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE ||
       event.mirror_failed().kind() == v1::MIRROR_FAILURE_KIND_CLUSTER_UNSUPPORTED);
  const bool in_cluster = event.has_mirror_written() || event.has_mirror_deleted() ||
                          event.has_mirror_deleted_externally() ||
                          (event.has_mirror_failed() && !cluster_failure) ||
                          event.has_namespace_labels_observed();
  if (in_cluster) entry.set_summary(absl::StrCat("in cluster ", cluster_, ": ", entry.summary()));
}

std::string SummarizeEvent(const v1::Event& event) {
  v1::TimelineEntry entry;
  Describe(event, entry);
  return entry.summary();
}

std::string FormatTimelineEntry(const v1::TimelineEntry& entry) {
  std::string line = absl::StrCat(
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", FromProto(entry.recorded_at()), absl::UTCTimeZone()),
      "  seq ", entry.seq(), "  ", OneLine(entry.actor()), "  ", OneLine(entry.event_type()), "  ",
      OneLine(entry.summary()));
  if (!entry.secret_name().empty())
    absl::StrAppend(&line, " secret=", OneLine(entry.secret_name()));
  if (!entry.credential_tag().empty()) {
    absl::StrAppend(&line, " tag=", OneLine(entry.credential_tag()));
  }
  line += '\n';
  return line;
}

}  // namespace credledger::projections
