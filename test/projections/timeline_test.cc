// Tests of the Target timeline (docs/forensics.md, "What happened to this Target, and who did
// it?"): one entry per event of the Target's target and report streams with a readable summary
// and the Secret, tag, attempt, actor and request id it concerns; a heartbeat gives an entry
// only when it ends a silence; the text form is one line per entry. The log is written through
// the command buses by the FleetDriver on a fake clock starting at 2026-01-01T00:00:00Z.
#include "projections/timeline.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rfc3339.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/identity_state.h"
#include "projections/report_streams.h"
#include "projections/target_state.h"
#include "store/event_codec.h"
#include "test/projections/fleet_log.h"
#include "test/support/fleet_target_events.h"
#include "test/support/reference_sha256.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace timeline_test {

using ::credledger::testing::ReferenceSha256HexPrefix;
using ::credledger::testing::StatusIs;
using ::credledger::testing::fleet_target::Heartbeat;
using ::credledger::testing::fleet_target::kName;
using ::credledger::testing::fleet_target::kNamespace;
using ::credledger::testing::fleet_target::kOtherUid;
using ::credledger::testing::fleet_target::kUid;
using ::testing::ElementsAre;

namespace svc = ::credledger::service;

// The uid the FleetDriver gives its n-th Secret, and that Secret's credentialTag computed
// with OpenSSL directly (first 10 hex characters of SHA-256 over the uid).
std::string SecretUid(int n) { return absl::StrCat("5ec7e700-0000-4000-8000-00000000000", n); }
std::string Tag(int n) { return ReferenceSha256HexPrefix(SecretUid(n), 10); }

v1::ReleaseStatus Release(const std::string& name, v1::ReleasePhase phase) {
  v1::ReleaseStatus r;
  r.set_name(name);
  r.set_namespace_("apps");
  r.set_phase(phase);
  r.set_revision("1.0.0");
  return r;
}

v1::PreflightCheck Check(const std::string& type, const std::string& status) {
  v1::PreflightCheck c;
  c.set_type(type);
  c.set_status(status);
  c.set_reason("Checked");
  return c;
}

// "<event type> | <summary> | <secret> | <tag> | <attempt>": what a test compares.
std::string Row(const v1::TimelineEntry& e) {
  return absl::StrCat(e.event_type(), " | ", e.summary(), " | ", e.secret_name(), " | ",
                      e.credential_tag(), " | ", e.attempt_id());
}

std::vector<std::string> Rows(const std::vector<v1::TimelineEntry>& entries) {
  std::vector<std::string> rows;
  for (const v1::TimelineEntry& e : entries) rows.push_back(Row(e));
  return rows;
}

class TimelineTest : public testing::FleetLogTest {
 protected:
  // The timeline of `ns`/`name` over the whole log.
  std::vector<v1::TimelineEntry> Timeline(const std::string& ns = kNamespace,
                                          const std::string& name = kName) {
    TimelineBuilder builder(ns, name);
    std::vector<v1::TimelineEntry> out;
    for (const store::RecordedEvent& e : AllEvents()) {
      absl::StatusOr<std::optional<v1::TimelineEntry>> entry = builder.Apply(e);
      EXPECT_OK(entry);
      if (entry.ok() && entry->has_value()) out.push_back(**entry);
    }
    return out;
  }

  // fleet/edge-1 registered with kUid and minted (Secret 1, m1).
  void RegisterAndMint() {
    ASSERT_OK(driver_->SetCredentialsEnabled(true));
    ASSERT_OK(driver_->Do(kNamespace, kName, svc::RegisterTarget{kUid, true}));
    ASSERT_OK(driver_->Reconcile(kNamespace, kName));
  }

  // A report with three releases (two Ready, one Progressing) and two preflight checks (one
  // passed, one failed), reported and received one second from now (when DoReport runs it).
  svc::SubmitReport ChangedReport() {
    const absl::Time at = clock_.Now() + absl::Seconds(1);
    svc::SubmitReport submit;
    *submit.report.mutable_last_report_time() = ToProto(at);
    *submit.report.add_releases() = Release("podinfo", v1::RELEASE_PHASE_READY);
    *submit.report.add_releases() = Release("redis", v1::RELEASE_PHASE_PROGRESSING);
    *submit.report.add_releases() = Release("nginx", v1::RELEASE_PHASE_READY);
    *submit.report.add_preflight_checks() = Check("DiskSpace", "True");
    *submit.report.add_preflight_checks() = Check("Dns", "False");
    submit.received_at = at;
    return submit;
  }

  // A liveness batch with a heartbeat of fleet/`name` received one second from now.
  svc::RecordLiveness HeartbeatBatch(const std::string& name = kName,
                                     const std::string& uid = kUid) {
    const absl::Time at = clock_.Now() + absl::Seconds(1);
    return svc::RecordLiveness{{Heartbeat(at, at, uid, name)}};
  }
};

TEST_F(TimelineTest, EveryEventOfTheTargetGivesASummaryWithItsSecretTagAndAttempt) {
  // Each command runs one second after the previous one; the bridge's TokenRequest answers
  // one second before CredentialIssued is recorded, and tokens live one hour.
  RegisterAndMint();  // 00:00:02 registered, m1; Secret 1's token answered at 00:00:03
  ASSERT_OK(driver_->Do(kNamespace, kName, svc::RequestRotation{"r2"}));
  // m2: Secret 2 created, its TokenRequest fails; the retry waits out the backoff.
  ASSERT_OK(driver_->Reconcile(kNamespace, kName, /*fail_token_request_once=*/true));
  clock_.Advance(absl::Minutes(1));
  ASSERT_OK(driver_->Reconcile(kNamespace, kName));  // m3 at 00:01:10, answered 00:01:11
  const std::string revision =
      absl::StrCat("1.0.0-", driver_->service().connection_hash(), "-", Tag(3));
  ASSERT_OK(driver_->Do(kNamespace, kName, svc::ConfirmRollout{revision}));
  ASSERT_OK(driver_->Reconcile(kNamespace, kName));
  ASSERT_OK(driver_->Do(kNamespace, kName, svc::Revoke{"laptop lost"}));
  ASSERT_OK(driver_->Reconcile(kNamespace, kName));
  ASSERT_OK(driver_->Do(kNamespace, kName, svc::LiftRevocation{}));
  ASSERT_OK(driver_->Reconcile(kNamespace, kName));  // m4: Secret 4, answered 00:01:21
  ASSERT_OK_AND_ASSIGN(v1::TargetState state, driver_->State(kNamespace, kName));
  ASSERT_NE(CurrentCredential(state), nullptr);
  // Deleted with kubectl 30 s before the bridge recorded it (at 00:01:24).
  ASSERT_OK(driver_->Do(kNamespace, kName,
                        svc::RecordSecretDeletedExternally{CurrentCredential(state)->secret(),
                                                           clock_.Now() - absl::Seconds(30)}));
  ASSERT_OK(driver_->DoReport(kNamespace, kName, ChangedReport()));
  v1::BoundRelease a, b;
  a.set_name("podinfo");
  a.set_namespace_("apps");
  b.set_name("redis");
  b.set_namespace_("apps");
  ASSERT_OK(driver_->DoReport(kNamespace, kName, svc::SetBoundReleases{{a, b}, "2.0.0"}));

  const std::string r2 = "rotation requested (value \"r2\")";
  EXPECT_THAT(
      Rows(Timeline()),
      ElementsAre(
          absl::StrCat("TargetRegistered | registered (uid ", kUid, ") |  |  | "),
          "CredentialMintRequested | mint m1 requested: first credential |  |  | m1",
          absl::StrCat("CredentialSecretCreated | Secret solar-agent-edge-1-1 created for m1 | "
                       "solar-agent-edge-1-1 | ",
                       Tag(1), " | m1"),
          absl::StrCat("CredentialIssued | credential issued: Secret solar-agent-edge-1-1, tag ",
                       Tag(1), ", expires 2026-01-01T01:00:03Z | solar-agent-edge-1-1 | ", Tag(1),
                       " | m1"),
          absl::StrCat("RotationRequested | ", r2, " |  |  | "),
          absl::StrCat("CredentialMintRequested | mint m2 requested: ", r2, " |  |  | m2"),
          absl::StrCat("CredentialSecretCreated | Secret solar-agent-edge-1-2 created for m2 | "
                       "solar-agent-edge-1-2 | ",
                       Tag(2), " | m2"),
          absl::StrCat("CredentialMintFailed | mint m2 failed at token request: tokenrequests is "
                       "forbidden; Secret solar-agent-edge-1-2 deleted again | "
                       "solar-agent-edge-1-2 | ",
                       Tag(2), " | m2"),
          absl::StrCat("CredentialMintRequested | mint m3 requested: ", r2, " |  |  | m3"),
          absl::StrCat("CredentialSecretCreated | Secret solar-agent-edge-1-2 created for m3 | "
                       "solar-agent-edge-1-2 | ",
                       Tag(3), " | m3"),
          absl::StrCat("CredentialIssued | credential issued: Secret solar-agent-edge-1-2, tag ",
                       Tag(3), ", expires 2026-01-01T01:01:11Z | solar-agent-edge-1-2 | ", Tag(3),
                       " | m3"),
          absl::StrCat("RolloutConfirmed | rollout confirmed at revision ", revision,
                       "; releases solar-agent-edge-1-1 |  | ", Tag(3), " | "),
          absl::StrCat("CredentialSecretDeleted | Secret solar-agent-edge-1-1 deleted (superseded) "
                       "| solar-agent-edge-1-1 | ",
                       Tag(1), " | "),
          "TargetRevoked | revoked: laptop lost |  |  | ",
          absl::StrCat("CredentialSecretDeleted | Secret solar-agent-edge-1-2 deleted (revoked) | "
                       "solar-agent-edge-1-2 | ",
                       Tag(3), " | "),
          "RevocationLifted | revocation lifted |  |  | ",
          "CredentialMintRequested | mint m4 requested: revocation lifted |  |  | m4",
          absl::StrCat("CredentialSecretCreated | Secret solar-agent-edge-1-1 created for m4 | "
                       "solar-agent-edge-1-1 | ",
                       Tag(4), " | m4"),
          absl::StrCat("CredentialIssued | credential issued: Secret solar-agent-edge-1-1, tag ",
                       Tag(4), ", expires 2026-01-01T01:01:21Z | solar-agent-edge-1-1 | ", Tag(4),
                       " | m4"),
          absl::StrCat("CredentialSecretDeletedExternally | Secret solar-agent-edge-1-1 deleted "
                       "outside credledger (observed 2026-01-01T00:00:53Z) | "
                       "solar-agent-edge-1-1 | ",
                       Tag(4), " | "),
          "CredentialMintRequested | mint m5 requested: replacement |  |  | m5",
          "ReportAccepted | report accepted: 3 releases (2 Ready, 1 Progressing), preflight 1 "
          "passed, 1 failed, 0 errored |  |  | ",
          "BoundReleasesSet | bound releases set (2, bootstrap version 2.0.0) |  |  | "));
}

TEST_F(TimelineTest, EntriesCarryTheEventsPositionActorAndRequestIdAndSkipOtherTargets) {
  RegisterAndMint();
  ASSERT_OK(driver_->Do(kNamespace, "edge-2", svc::RegisterTarget{kOtherUid, true}));
  ASSERT_OK(driver_->Reconcile(kNamespace, "edge-2"));
  ASSERT_OK(driver_->DoReport(kNamespace, kName, ChangedReport()));
  ASSERT_OK(driver_->DoReport(kNamespace, "edge-2", ChangedReport()));

  const std::vector<store::RecordedEvent> events = AllEvents();
  std::vector<int64_t> own;
  for (const store::RecordedEvent& e : events) {
    if (e.stream == "target/fleet/edge-1" || e.stream == "report/fleet/edge-1")
      own.push_back(e.seq);
  }
  const std::vector<v1::TimelineEntry> timeline = Timeline();
  std::vector<int64_t> seqs;
  for (const v1::TimelineEntry& entry : timeline) {
    seqs.push_back(entry.seq());
    const store::RecordedEvent& e = events[entry.seq() - 1];
    EXPECT_EQ(entry.stream(), e.stream);
    EXPECT_EQ(FromProto(entry.recorded_at()), absl::FromUnixMicros(e.recorded_at_us));
    EXPECT_EQ(absl::StrCat("credledger.v1.", entry.event_type()), e.type);
    EXPECT_EQ(entry.target_uid(), kUid);
  }
  EXPECT_EQ(seqs, own);
  ASSERT_GE(timeline.size(), 4u);
  // The driver's first command is the registration (client "alice", request req-1); the
  // bridge's outcomes run as "credledger".
  EXPECT_EQ(timeline[0].actor(), "alice");
  EXPECT_EQ(timeline[0].request_id(), "req-1");
  EXPECT_EQ(timeline[1].request_id(), "req-1");  // m1, appended with the registration
  EXPECT_EQ(timeline[2].actor(), "credledger");
  EXPECT_EQ(timeline[2].request_id(), "req-2");
  EXPECT_EQ(timeline.back().event_type(), "ReportAccepted");
  EXPECT_EQ(timeline.back().stream(), "report/fleet/edge-1");
}

TEST_F(TimelineTest, AHeartbeatGivesAnEntryOnlyWhenItEndsASilence) {
  RegisterAndMint();
  ASSERT_OK(driver_->Do(kNamespace, "edge-2", svc::RegisterTarget{kOtherUid, true}));
  ASSERT_OK(driver_->DoReport(kNamespace, kName, ChangedReport()));
  svc::RecordLiveness beat = HeartbeatBatch();
  ASSERT_OK(driver_->DoReport(kNamespace, kName, beat));  // not silent: no entry
  const absl::Time last_seen = FromProto(beat.entries[0].received_at());
  clock_.Advance(absl::Minutes(11));
  ASSERT_OK(driver_->DoReport(kNamespace, kName, svc::MarkStale{last_seen, absl::Minutes(10)}));
  ASSERT_OK(driver_->DoReport(kNamespace, "edge-2", HeartbeatBatch("edge-2", kOtherUid)));
  ASSERT_OK(driver_->DoReport(kNamespace, kName, HeartbeatBatch()));  // ends the silence
  ASSERT_OK(driver_->DoReport(kNamespace, kName, HeartbeatBatch()));  // no entry
  const std::vector<store::RecordedEvent> events = AllEvents();
  const int64_t reporting_again = events[events.size() - 2].seq;
  ASSERT_EQ(events[reporting_again - 1].stream, kLivenessStream);

  const std::vector<v1::TimelineEntry> timeline = Timeline();
  ASSERT_GE(timeline.size(), 2u);
  const v1::TimelineEntry& stale = timeline[timeline.size() - 2];
  EXPECT_EQ(Row(stale),
            absl::StrCat("ReportingStale | reporting stale: silent since ",
                         common::FormatRfc3339(last_seen), " (stale after 600s) |  |  | "));
  const v1::TimelineEntry& again = timeline.back();
  EXPECT_EQ(Row(again), "LivenessObserved | heartbeat received: reporting again |  |  | ");
  EXPECT_EQ(again.seq(), reporting_again);
  EXPECT_EQ(again.stream(), kLivenessStream);
  EXPECT_EQ(again.actor(), "credledger");
  EXPECT_EQ(again.target_uid(), kUid);
}

TEST_F(TimelineTest, AReportEndsASilenceSoTheNextHeartbeatGivesNoEntry) {
  RegisterAndMint();
  ASSERT_OK(driver_->DoReport(kNamespace, kName, ChangedReport()));
  const absl::Time last_seen = clock_.Now();
  clock_.Advance(absl::Minutes(11));
  ASSERT_OK(driver_->DoReport(kNamespace, kName, svc::MarkStale{last_seen, absl::Minutes(10)}));
  svc::SubmitReport report = ChangedReport();
  report.report.mutable_releases()->RemoveLast();
  ASSERT_OK(driver_->DoReport(kNamespace, kName, report));
  ASSERT_OK(driver_->DoReport(kNamespace, kName, HeartbeatBatch()));

  const std::vector<v1::TimelineEntry> timeline = Timeline();
  ASSERT_GE(timeline.size(), 2u);
  EXPECT_EQ(timeline[timeline.size() - 2].event_type(), "ReportingStale");
  EXPECT_EQ(Row(timeline.back()),
            "ReportAccepted | report accepted: 2 releases (1 Ready, 1 Progressing), preflight 1 "
            "passed, 1 failed, 0 errored |  |  | ");
}

TEST(TimelineBuilderTest, OtherStreamsAreSkippedAndUndecodableEventsAreDataLoss) {
  TimelineBuilder builder(kNamespace, kName);
  store::RecordedEvent garbage;
  garbage.seq = 7;
  garbage.type = "credledger.v1.TargetRevoked";
  garbage.payload = "\xff\xff\xff";
  for (const char* stream : {"service", "target/fleet/edge-2", "report/other/edge-1"}) {
    garbage.stream = stream;
    absl::StatusOr<std::optional<v1::TimelineEntry>> entry = builder.Apply(garbage);
    ASSERT_OK(entry);
    EXPECT_FALSE(entry->has_value()) << stream;
  }
  garbage.stream = "target/fleet/edge-1";
  EXPECT_THAT(builder.Apply(garbage), StatusIs(absl::StatusCode::kDataLoss));

  ASSERT_OK_AND_ASSIGN(store::NewEvent encoded,
                       store::EventCodec::Default().Encode(
                           testing::fleet_target::DeletionRequested(), v1::EventMetadata()));
  store::RecordedEvent bad_metadata = garbage;
  bad_metadata.type = encoded.type;
  bad_metadata.payload = encoded.payload;
  bad_metadata.metadata = "\xff\xff\xff";
  EXPECT_THAT(builder.Apply(bad_metadata), StatusIs(absl::StatusCode::kDataLoss));
}

// The summaries of events the scripted histories above do not produce.
TEST(TimelineBuilderTest, SummariesOfTheRestOfTheLifecycle) {
  v1::Event e;
  e.mutable_target_deletion_requested()->set_target_uid(kUid);
  EXPECT_EQ(SummarizeEvent(e), "deletion requested");

  e.Clear();
  e.mutable_target_finalized()->add_deleted_objects("Secret/solar-agent-edge-1-1");
  e.mutable_target_finalized()->add_deleted_objects("ServiceAccount/solar-agent-edge-1");
  EXPECT_EQ(SummarizeEvent(e),
            "finalized: deleted Secret/solar-agent-edge-1-1, ServiceAccount/solar-agent-edge-1");
  e.mutable_target_finalized()->clear_deleted_objects();
  EXPECT_EQ(SummarizeEvent(e), "finalized (nothing left to delete)");

  e.Clear();
  e.mutable_target_revoked()->set_target_uid(kUid);
  EXPECT_EQ(SummarizeEvent(e), "revoked (no reason given)");

  e.Clear();
  e.mutable_credential_mint_abandoned()->set_attempt_id("m3");
  e.mutable_credential_mint_abandoned()->set_reason("the Target is being deleted");
  EXPECT_EQ(SummarizeEvent(e), "mint m3 abandoned: the Target is being deleted");

  e.Clear();
  e.mutable_credential_mint_failed()->set_stage(v1::MINT_STAGE_IDENTITY);
  e.mutable_credential_mint_failed()->set_message("POST roles: Forbidden");
  EXPECT_EQ(SummarizeEvent(e), "mint failed at identity: POST roles: Forbidden");

  e.Clear();
  v1::StaleCredentialsDeleted& stale = *e.mutable_stale_credentials_deleted();
  stale.set_attempt_id("m2");
  stale.add_secrets()->set_name("solar-agent-edge-1-1");
  stale.add_secret_target_uids(kOtherUid);
  EXPECT_EQ(SummarizeEvent(e), absl::StrCat("stale Secret solar-agent-edge-1-1 (target-uid label ",
                                            kOtherUid, ") deleted before mint m2"));
  stale.clear_attempt_id();
  stale.add_secrets()->set_name("solar-agent-edge-1-7");
  stale.add_secret_target_uids("");
  EXPECT_EQ(SummarizeEvent(e),
            absl::StrCat("2 stale Secrets deleted: solar-agent-edge-1-1 (target-uid label ",
                         kOtherUid, "), solar-agent-edge-1-7 (no target-uid label)"));

  e.Clear();
  e.mutable_identity_objects_written()->add_writes("created ServiceAccount/solar-agent-edge-1");
  e.mutable_identity_objects_written()->add_writes("updated Role/solar-agent-edge-1");
  EXPECT_EQ(SummarizeEvent(e),
            "identity objects written: created ServiceAccount/solar-agent-edge-1, updated "
            "Role/solar-agent-edge-1");

  e.Clear();
  v1::CredentialIssued& issued = *e.mutable_credential_issued();
  issued.mutable_secret()->set_name("solar-agent-edge-1-3");
  issued.set_credential_tag("ab12cd34ef");
  *issued.mutable_expires_at() = ToProto(absl::FromUnixSeconds(1796205600));
  issued.set_adopted(true);
  EXPECT_EQ(SummarizeEvent(e),
            "credential issued: Secret solar-agent-edge-1-3, tag ab12cd34ef, expires "
            "2026-12-02T10:00:00Z (token adopted after a restart)");

  e = testing::fleet_target::Accepted(v1::TargetReportSpec(), testing::fleet_target::kT0);
  EXPECT_EQ(SummarizeEvent(e), "report accepted: no releases");
  e = testing::fleet_target::Stale(testing::fleet_target::kT0, 600);
  EXPECT_EQ(SummarizeEvent(e),
            "reporting stale: silent since 2026-01-01T00:00:00Z (stale after 600s)");

  e.Clear();
  e.mutable_bound_releases_set()->add_releases()->set_name("podinfo");
  EXPECT_EQ(SummarizeEvent(e), "bound releases set (1)");
}

// An event of identity `identity`'s stream at `seq`, as the store would hand it back.
store::RecordedEvent IdentityEvent(const std::string& identity, int64_t seq,
                                   const v1::Event& event) {
  absl::StatusOr<store::NewEvent> encoded =
      store::EventCodec::Default().Encode(event, v1::EventMetadata());
  EXPECT_OK(encoded);
  store::RecordedEvent r;
  r.seq = seq;
  r.stream = IdentityStream(identity);
  r.stream_version = seq - 1;
  r.type = encoded.ok() ? encoded->type : "";
  r.schema_version = encoded.ok() ? encoded->schema_version : 0;
  r.metadata = encoded.ok() ? encoded->metadata : "";
  r.payload = encoded.ok() ? encoded->payload : "";
  r.recorded_at_us = 1767225600LL * 1'000'000 + seq;
  return r;
}

// The summaries of `events`, applied in order to the timeline of identity "cloud".
std::vector<std::string> IdentitySummaries(const std::vector<v1::Event>& events) {
  TimelineBuilder builder = TimelineBuilder::ForIdentity("cloud");
  std::vector<std::string> summaries;
  for (size_t i = 0; i < events.size(); ++i) {
    absl::StatusOr<std::optional<v1::TimelineEntry>> entry =
        builder.Apply(IdentityEvent("cloud", static_cast<int64_t>(i) + 1, events[i]));
    EXPECT_OK(entry);
    if (entry.ok() && entry->has_value()) summaries.push_back((*entry)->summary());
  }
  return summaries;
}

// Regression: the identity timeline did not say in which cluster a mirror was written when
// the identity mirrors into a registered cluster.
TEST(TimelineBuilderTest, AnIdentitysEntriesNameTheRegisteredClusterItsMirrorsAreIn) {
  v1::Event created;
  created.mutable_identity_created()->set_name("cloud");
  v1::IdentitySpec& spec = *created.mutable_identity_created()->mutable_spec();
  spec.mutable_secret_ref()->set_namespace_("ops");
  spec.mutable_secret_ref()->set_name("cloud-src");
  spec.mutable_allowed_namespaces()->add_list("team-a");
  spec.set_cluster("edge-1");
  v1::Event written;
  v1::MirrorWritten& w = *written.mutable_mirror_written();
  w.set_namespace_("team-a");
  w.mutable_secret()->set_name("captf-creds-cloud");
  w.set_source_hash("0123456789abcdef");
  w.set_kind(v1::MIRROR_WRITE_KIND_CREATED);
  v1::Event write_failed;
  write_failed.mutable_mirror_failed()->set_namespace_("team-a");
  write_failed.mutable_mirror_failed()->set_kind(v1::MIRROR_FAILURE_KIND_WRITE_FAILED);
  write_failed.mutable_mirror_failed()->set_message("PUT: HTTP 409 Conflict");
  v1::Event unreachable;
  unreachable.mutable_mirror_failed()->set_namespace_("team-a");
  unreachable.mutable_mirror_failed()->set_kind(v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE);
  unreachable.mutable_mirror_failed()->set_message("cluster \"edge-1\": connection refused");
  v1::Event deleted;
  deleted.mutable_mirror_deleted()->set_namespace_("team-a");
  deleted.mutable_mirror_deleted()->mutable_secret()->set_name("captf-creds-cloud");
  deleted.mutable_mirror_deleted()->set_reason(v1::MIRROR_DELETION_REASON_UNBOUND);
  v1::Event gone;
  gone.mutable_bound_object_gone()->set_namespace_("team-a");
  gone.mutable_bound_object_gone()->mutable_owner()->set_api_version("v1");
  gone.mutable_bound_object_gone()->mutable_owner()->set_kind("ConfigMap");
  gone.mutable_bound_object_gone()->mutable_owner()->set_name("consumer");
  gone.mutable_bound_object_gone()->mutable_owner()->set_uid("u1");
  gone.mutable_bound_object_gone()->set_absence(v1::BOUND_OBJECT_ABSENCE_NOT_FOUND);
  // Back home: the same mirror event names no cluster.
  v1::Event moved_home;
  *moved_home.mutable_identity_updated()->mutable_spec() = spec;
  moved_home.mutable_identity_updated()->mutable_spec()->clear_cluster();

  const std::vector<std::string> summaries = IdentitySummaries(
      {created, written, write_failed, unreachable, deleted, gone, moved_home, written});
  ASSERT_EQ(summaries.size(), 8u);
  // The spec names the cluster in its own words; the entry gets no prefix.
  EXPECT_THAT(summaries[0], ::testing::AllOf(::testing::StartsWith("identity cloud created: "),
                                             ::testing::HasSubstr("mirrors in cluster edge-1")));
  EXPECT_EQ(summaries[1],
            "in cluster edge-1: mirror captf-creds-cloud written in team-a (created, source "
            "0123456789ab, 0 owner references)");
  EXPECT_EQ(summaries[2], "in cluster edge-1: mirror in team-a failed (write failed): PUT: "
                          "HTTP 409 Conflict");
  // The message of a failure to reach the cluster names it already.
  EXPECT_EQ(summaries[3],
            "mirror in team-a failed (cluster unreachable): cluster \"edge-1\": connection "
            "refused");
  EXPECT_EQ(summaries[4],
            "in cluster edge-1: mirror captf-creds-cloud deleted from team-a (last binding "
            "removed)");
  // The bound object lived in the cluster of the mirrors.
  EXPECT_EQ(summaries[5],
            "in cluster edge-1: ConfigMap consumer (v1, uid u1) bound in namespace team-a is gone "
            "(not found)");
  EXPECT_EQ(summaries[7],
            "mirror captf-creds-cloud written in team-a (created, source 0123456789ab, 0 owner "
            "references)");
}

TEST(FormatTimelineEntryTest, OneLineWithTheSecretAndTagWhenSet) {
  v1::TimelineEntry entry;
  entry.set_seq(42);
  *entry.mutable_recorded_at() =
      ToProto(absl::FromUnixSeconds(1767225605) + absl::Milliseconds(250));
  entry.set_actor("credledger");
  entry.set_event_type("CredentialIssued");
  entry.set_summary("credential issued: Secret solar-agent-edge-1-3");
  EXPECT_EQ(FormatTimelineEntry(entry),
            "2026-01-01T00:00:05Z  seq 42  credledger  CredentialIssued  credential issued: "
            "Secret solar-agent-edge-1-3\n");
  entry.set_secret_name("solar-agent-edge-1-3");
  entry.set_credential_tag("ab12cd34ef");
  EXPECT_EQ(FormatTimelineEntry(entry),
            "2026-01-01T00:00:05Z  seq 42  credledger  CredentialIssued  credential issued: "
            "Secret solar-agent-edge-1-3 secret=solar-agent-edge-1-3 tag=ab12cd34ef\n");
}

// Free text (a revocation reason, an actor name) could hold a newline and forge a line that
// looks like another event.
TEST(FormatTimelineEntryTest, ControlCharactersCannotBreakTheLine) {
  v1::TimelineEntry entry;
  entry.set_seq(7);
  *entry.mutable_recorded_at() = ToProto(absl::FromUnixSeconds(1767225600));
  entry.set_actor("bob\t");
  entry.set_event_type("TargetRevoked");
  entry.set_summary("revoked: lost\n2026-01-01T00:00:09Z  seq 8  alice  RevocationLifted");
  EXPECT_EQ(FormatTimelineEntry(entry),
            "2026-01-01T00:00:00Z  seq 7  bob\\x09  TargetRevoked  revoked: "
            "lost\\x0a2026-01-01T00:00:09Z  seq 8  alice  RevocationLifted\n");
}

}  // namespace timeline_test
}  // namespace credledger::projections
