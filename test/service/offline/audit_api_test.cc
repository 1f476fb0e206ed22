// Tests of AuditApi (docs/audit.md, "Export"; docs/forensics.md, "What was true at 10:02?"):
// the export's selection, batching and signed trailer, and the as-of answers against the live
// projections and a full rebuild, on a realistic log written by FleetDriver on a real SQLite
// store.
#include "service/offline/audit_api.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "audit/export_format.h"
#include "audit/signed_records.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/credential_projector.h"
#include "projections/proto_time.h"
#include "projections/status_projector.h"
#include "service/bus/identity_command_bus.h"
#include "service/offline/status_view.h"
#include "service/offline/target_view.h"
#include "store/log_hash.h"
#include "test/projections/fleet_log.h"
#include "test/support/recorded_events.h"
#include "test/support/status_matchers.h"
#include "test/support/test_snapshot_guard.h"

namespace credledger::service {
namespace audit_api_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails

// Everything one export sent.
struct Exported {
  std::vector<v1::ExportEventsResponse> batches;  // event batches, trailer excluded
  std::vector<store::RecordedEvent> events;
  v1::ExportTrailer trailer;
  bool trailer_seen = false;
};

std::vector<int64_t> Seqs(const std::vector<store::RecordedEvent>& events) {
  std::vector<int64_t> seqs;
  for (const store::RecordedEvent& e : events) seqs.push_back(e.seq);
  return seqs;
}

// The lines_hash of docs/audit.md ("Trailer") over `events` in export order, computed here.
std::string LinesHashOf(const std::vector<store::RecordedEvent>& events) {
  std::string lines = store::ZeroHash();
  for (const store::RecordedEvent& e : events) {
    std::string bytes = lines;
    store::AppendLengthPrefixedInt(&bytes, e.seq);
    store::AppendLengthPrefixed(&bytes, e.digest);
    store::AppendLengthPrefixed(&bytes, e.chain_hash);
    store::AppendLengthPrefixed(&bytes, e.stream_hash);
    lines = std::string(common::AsBytes(common::Sha256Of(bytes)));
  }
  return lines;
}

class AuditApiTest : public testing::FleetLogTest {
 protected:
  void SetUp() override {
    FleetLogTest::SetUp();
    auto key = audit::SigningKey::Generate();
    ASSERT_OK(key);
    key_ = std::make_unique<audit::SigningKey>(*std::move(key));
    ASSERT_OK_AND_ASSIGN(snapshots_, testing::TestSnapshotGuard::Create());
    api_ = std::make_unique<AuditApi>(store_.get(), key_.get(), &clock_, snapshots_->get());
  }

  absl::StatusOr<Exported> Export(const v1::ExportFilter& filter, AuditApi* api = nullptr) {
    Exported out;
    v1::ExportEventsRequest request;
    *request.mutable_filter() = filter;
    absl::Status status = (api != nullptr ? api : api_.get())
                              ->ExportEvents(request, [&](const v1::ExportEventsResponse& r) {
                                EXPECT_FALSE(out.trailer_seen) << "a message after the trailer";
                                if (r.has_trailer()) {
                                  out.trailer = r.trailer();
                                  out.trailer_seen = true;
                                  EXPECT_EQ(r.events_size(), 0);
                                  return true;
                                }
                                out.batches.push_back(r);
                                for (const v1::ExportedEvent& e : r.events()) {
                                  out.events.push_back(audit::FromExported(e));
                                }
                                return true;
                              });
    if (!status.ok()) return status;
    EXPECT_TRUE(out.trailer_seen);
    return out;
  }

  // The events of the log that `keep` selects.
  template <typename Keep>
  std::vector<store::RecordedEvent> Expected(Keep keep) {
    std::vector<store::RecordedEvent> out;
    for (const store::RecordedEvent& e : AllEvents()) {
      if (keep(e)) out.push_back(e);
    }
    return out;
  }

  std::unique_ptr<audit::SigningKey> key_;
  std::unique_ptr<testing::TestSnapshotGuard> snapshots_;
  std::unique_ptr<AuditApi> api_;
};

TEST_F(AuditApiTest, ExportRefusesBadFiltersNamingTheField) {
  ASSERT_OK(driver_->RunPhaseOne());
  struct Case {
    v1::ExportFilter filter;
    std::string field;
  };
  std::vector<Case> cases(6);
  cases[0].filter.set_after_seq(-1);
  cases[0].field = "filter.after_seq";
  cases[1].filter.set_after_seq(5);
  cases[1].filter.set_until_seq(4);
  cases[1].field = "filter.until_seq";
  cases[2].filter.set_from_time_us(10);
  cases[2].filter.set_to_time_us(9);
  cases[2].field = "filter.to_time_us";
  cases[3].filter.set_stream("target/demo/a");
  cases[3].filter.set_stream_prefix("target/");
  cases[3].field = "filter.stream_prefix: not with filter.stream";
  cases[4].filter.add_types("credledger.v1.CredentialIssued");
  cases[4].filter.add_types("CredentialIssued");
  cases[4].field = "filter.types[1]";
  cases[5].filter.set_from_time_us(-1);
  cases[5].field = "filter.from_time_us";
  for (const Case& c : cases) {
    int writes = 0;
    v1::ExportEventsRequest request;
    *request.mutable_filter() = c.filter;
    EXPECT_THAT(api_->ExportEvents(request,
                                   [&](const v1::ExportEventsResponse&) { return ++writes > 0; }),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.field)))
        << c.filter.ShortDebugString();
    EXPECT_EQ(writes, 0);
  }
}

TEST_F(AuditApiTest, ExportHoldsEveryStoredEventAndASignedTrailerOfTheHead) {
  ASSERT_OK(driver_->RunPhaseOne());
  const std::vector<store::RecordedEvent> all = AllEvents();
  ASSERT_GT(all.size(), 10u);
  ASSERT_OK(store_->SaveCheckpoint(*audit::SignCheckpoint(*key_, all[4].seq, all[4].chain_hash,
                                                          all[4].recorded_at_us)));
  clock_.Advance(absl::Seconds(7));

  ASSERT_OK_AND_ASSIGN(Exported out, Export(v1::ExportFilter()));
  ASSERT_EQ(out.events.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) testing::ExpectSameEvent(out.events[i], all[i]);

  const v1::ExportTrailer& t = out.trailer;
  EXPECT_EQ(t.first_seq(), 1);
  EXPECT_EQ(t.last_seq(), all.back().seq);
  EXPECT_EQ(t.event_count(), static_cast<int64_t>(all.size()));
  EXPECT_EQ(t.head_seq(), all.back().seq);
  EXPECT_EQ(t.head_chain_hash(), all.back().chain_hash);
  EXPECT_EQ(t.exported_at_us(), absl::ToUnixMicros(clock_.Now()));
  EXPECT_EQ(t.checkpoint().seq(), all[4].seq);
  // The last event of every stream, ordered by stream name.
  std::map<std::string, const store::RecordedEvent*> last;
  for (const store::RecordedEvent& e : all) last[e.stream] = &e;
  ASSERT_EQ(t.streams_size(), static_cast<int>(last.size()));
  int i = 0;
  for (const auto& [stream, e] : last) {
    EXPECT_EQ(t.streams(i).stream(), stream);
    EXPECT_EQ(t.streams(i).stream_version(), e->stream_version);
    EXPECT_EQ(t.streams(i).stream_hash(), e->stream_hash);
    ++i;
  }
  EXPECT_EQ(t.key_id(), key_->key_id());
  EXPECT_OK(audit::VerifyTrailer(key_->public_key(), t));
}

TEST_F(AuditApiTest, ExportSelectsBySeqTimeStreamPrefixAndType) {
  ASSERT_OK(driver_->RunPhaseOne());
  const std::vector<store::RecordedEvent> all = AllEvents();
  const store::RecordedEvent& pivot = all[all.size() / 2];

  v1::ExportFilter seqs;
  seqs.set_after_seq(3);
  seqs.set_until_seq(9);
  ASSERT_OK_AND_ASSIGN(Exported out, Export(seqs));
  EXPECT_THAT(Seqs(out.events), ElementsAreArray(Seqs(Expected([](const auto& e) {
                return e.seq > 3 && e.seq <= 9;
              }))));
  EXPECT_EQ(out.trailer.first_seq(), 4);
  EXPECT_EQ(out.trailer.last_seq(), 9);
  EXPECT_EQ(out.trailer.head_seq(), all.back().seq);

  v1::ExportFilter times;
  times.set_from_time_us(all[2].recorded_at_us);
  times.set_to_time_us(all[6].recorded_at_us);
  ASSERT_OK_AND_ASSIGN(out, Export(times));
  EXPECT_THAT(Seqs(out.events), ElementsAreArray(Seqs(Expected([&](const auto& e) {
                return e.recorded_at_us >= all[2].recorded_at_us &&
                       e.recorded_at_us <= all[6].recorded_at_us;
              }))));

  v1::ExportFilter stream;
  stream.set_stream(pivot.stream);
  ASSERT_OK_AND_ASSIGN(out, Export(stream));
  EXPECT_THAT(Seqs(out.events),
              ElementsAreArray(Seqs(Expected([&](const auto& e) { return e.stream == pivot.stream; }))));
  ASSERT_EQ(out.trailer.streams_size(), 1);
  EXPECT_EQ(out.trailer.streams(0).stream(), pivot.stream);

  v1::ExportFilter prefix;
  prefix.set_stream_prefix("target/");
  ASSERT_OK_AND_ASSIGN(out, Export(prefix));
  const auto targets = Expected([](const auto& e) { return e.stream.rfind("target/", 0) == 0; });
  ASSERT_FALSE(targets.empty());
  EXPECT_LT(targets.size(), all.size());  // the service stream is left out
  EXPECT_THAT(Seqs(out.events), ElementsAreArray(Seqs(targets)));

  v1::ExportFilter types;
  types.add_types("credledger.v1.CredentialIssued");
  types.add_types("credledger.v1.TargetRevoked");
  ASSERT_OK_AND_ASSIGN(out, Export(types));
  const auto typed = Expected([](const auto& e) {
    return e.type == "credledger.v1.CredentialIssued" || e.type == "credledger.v1.TargetRevoked";
  });
  ASSERT_FALSE(typed.empty());
  EXPECT_THAT(Seqs(out.events), ElementsAreArray(Seqs(typed)));
  EXPECT_EQ(out.trailer.event_count(), static_cast<int64_t>(typed.size()));

  // A selection past the head is empty and still closed by a trailer of the head.
  v1::ExportFilter past;
  past.set_after_seq(all.back().seq);
  ASSERT_OK_AND_ASSIGN(out, Export(past));
  EXPECT_TRUE(out.events.empty());
  EXPECT_EQ(out.trailer.first_seq(), 0);
  EXPECT_EQ(out.trailer.event_count(), 0);
  EXPECT_EQ(out.trailer.head_chain_hash(), all.back().chain_hash);
}

TEST_F(AuditApiTest, ExportTrailerIsVersionTwoCommittingToEveryExportedLine) {
  ASSERT_OK(driver_->RunPhaseOne());
  const std::vector<store::RecordedEvent> all = AllEvents();
  v1::ExportFilter types;
  types.add_types("credledger.v1.CredentialIssued");
  v1::ExportFilter past;
  past.set_after_seq(all.back().seq);
  for (const v1::ExportFilter& filter : {v1::ExportFilter(), types, past}) {
    SCOPED_TRACE(filter.ShortDebugString());
    ASSERT_OK_AND_ASSIGN(Exported out, Export(filter));
    EXPECT_EQ(out.trailer.version(), 2u);
    EXPECT_EQ(out.trailer.lines_hash(), LinesHashOf(out.events));
    EXPECT_OK(audit::VerifyTrailer(key_->public_key(), out.trailer));
  }
  ASSERT_OK_AND_ASSIGN(Exported typed, Export(types));
  ASSERT_GE(typed.events.size(), 2u);
  EXPECT_NE(typed.trailer.lines_hash(), LinesHashOf({typed.events[1], typed.events[0]}));
}

TEST_F(AuditApiTest, ExportSendsBoundedBatchesAndStopsWhenTheClientGoesAway) {
  for (int i = 0; i < 3; ++i) {
    store::AppendRequest request{"bulk-" + std::to_string(i), {}};
    request.streams.push_back({"bulk", store::ExpectedVersion::Any(), {}});
    for (int j = 0; j < 400; ++j) {
      request.streams[0].events.push_back({"credledger.v1.ServiceConfigured", 1, "", ""});
    }
    ASSERT_OK(store_->Append(request));
  }
  ASSERT_OK_AND_ASSIGN(Exported out, Export(v1::ExportFilter()));
  EXPECT_EQ(out.events.size(), 1200u);
  ASSERT_GE(out.batches.size(), 3u);
  for (const v1::ExportEventsResponse& batch : out.batches) EXPECT_LE(batch.events_size(), 512);

  int writes = 0;
  v1::ExportEventsRequest request;
  EXPECT_THAT(api_->ExportEvents(request,
                                 [&](const v1::ExportEventsResponse&) { return ++writes < 2; }),
              StatusIs(absl::StatusCode::kCancelled));
  EXPECT_EQ(writes, 2);
}

TEST_F(AuditApiTest, ExportWithoutAKeyHasAnUnsignedTrailer) {
  ASSERT_OK(driver_->RunPhaseOne());
  AuditApi unsigned_api(store_.get(), nullptr, &clock_);
  ASSERT_OK_AND_ASSIGN(Exported out, Export(v1::ExportFilter(), &unsigned_api));
  EXPECT_TRUE(out.trailer.key_id().empty());
  EXPECT_TRUE(out.trailer.signature().empty());
  EXPECT_THAT(audit::VerifyTrailer(key_->public_key(), out.trailer),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST_F(AuditApiTest, StateAtTheHeadEqualsTheLiveProjections) {
  ASSERT_OK(driver_->RunPhaseOne());
  ASSERT_OK(driver_->RunPhaseTwo());
  ASSERT_OK_AND_ASSIGN(auto credentials, projections::CredentialProjector::Start(store_.get(), {}));
  ASSERT_OK_AND_ASSIGN(auto statuses, projections::StatusProjector::Start(store_.get(), {}));
  const int64_t head = store_->HeadSeq();
  ASSERT_TRUE(credentials->WaitForSeq(head, kWait));
  ASSERT_TRUE(statuses->WaitForSeq(head, kWait));

  v1::GetStateAtRequest request;
  request.mutable_as_of()->set_seq(head);
  ASSERT_OK_AND_ASSIGN(v1::GetStateAtResponse state, api_->GetStateAt(request));
  EXPECT_EQ(state.seq(), head);
  EXPECT_EQ(state.service().SerializeAsString(), credentials->service().SerializeAsString());
  int64_t live_seq = 0;
  std::vector<v1::TargetState> live = credentials->List("", /*include_finalized=*/true, &live_seq);
  ASSERT_EQ(state.targets_size(), static_cast<int>(live.size()));
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(state.targets(i).SerializeAsString(),
              ToTargetView(live[i], credentials->service().connection_hash()).SerializeAsString());
    std::optional<v1::TargetStatus> status = statuses->Get(live[i].namespace_(), live[i].name());
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(state.statuses(i).SerializeAsString(), ToStatusView(*status).SerializeAsString());
  }
}

TEST_F(AuditApiTest, StateAtEverySeqEqualsAFullRebuildDespiteSnapshots) {
  // A projector following the log writes snapshots every 5 events: as-of answers start
  // from them.
  {
    ASSERT_OK_AND_ASSIGN(auto projector,
                         projections::CredentialProjector::Start(
                             store_.get(), {.snapshot_every = 5, .snapshots = snapshots_->get()}));
    ASSERT_OK(driver_->RunPhaseOne());
    ASSERT_TRUE(projector->WaitForSeq(store_->HeadSeq(), kWait));
  }
  ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> snapshot,
                       store_->LoadSnapshot("credentials", store_->HeadSeq()));
  ASSERT_TRUE(snapshot.has_value());

  for (int64_t seq = 0; seq <= store_->HeadSeq(); ++seq) {
    ASSERT_OK_AND_ASSIGN(projections::CredentialProjection rebuilt,
                         testing::FoldFromSeqOne(*store_, seq));
    v1::GetStateAtRequest request;
    request.mutable_as_of()->set_seq(seq);
    ASSERT_OK_AND_ASSIGN(v1::GetStateAtResponse state, api_->GetStateAt(request));
    std::vector<v1::TargetState> targets = rebuilt.List("", /*include_finalized=*/true);
    ASSERT_EQ(state.targets_size(), static_cast<int>(targets.size())) << "seq " << seq;
    for (size_t i = 0; i < targets.size(); ++i) {
      EXPECT_EQ(state.targets(i).SerializeAsString(),
                ToTargetView(targets[i], rebuilt.service().connection_hash()).SerializeAsString())
          << "seq " << seq;
    }
  }
}

TEST_F(AuditApiTest, StateAtResolvesTimesAndRefusesBadPoints) {
  ASSERT_OK(driver_->RunPhaseOne());
  const std::vector<store::RecordedEvent> all = AllEvents();
  // Two events with time between them (the events of one command are 1 µs apart).
  size_t i = 3;
  while (i + 1 < all.size() && all[i + 1].recorded_at_us - all[i].recorded_at_us < 2) ++i;
  ASSERT_LT(i + 1, all.size());

  // A time between two events names the earlier one.
  v1::GetStateAtRequest request;
  *request.mutable_as_of()->mutable_time() =
      projections::ToProto(absl::FromUnixMicros(all[i].recorded_at_us + 1));
  ASSERT_OK_AND_ASSIGN(v1::GetStateAtResponse state, api_->GetStateAt(request));
  EXPECT_EQ(state.seq(), all[i].seq);
  EXPECT_EQ(absl::ToUnixMicros(projections::FromProto(state.recorded_at())),
            all[i].recorded_at_us);

  // Before the first event: the empty fleet at seq 0.
  *request.mutable_as_of()->mutable_time() =
      projections::ToProto(absl::FromUnixMicros(all[0].recorded_at_us - 1));
  ASSERT_OK_AND_ASSIGN(state, api_->GetStateAt(request));
  EXPECT_EQ(state.seq(), 0);
  EXPECT_EQ(state.targets_size(), 0);
  EXPECT_FALSE(state.has_service());

  request.mutable_as_of()->set_seq(store_->HeadSeq() + 1);
  EXPECT_THAT(api_->GetStateAt(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("as_of.seq")));
  request.clear_as_of();
  EXPECT_THAT(api_->GetStateAt(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("as_of: required")));
  request.mutable_as_of()->set_seq(1);
  request.set_name("edge-1");
  EXPECT_THAT(api_->GetStateAt(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name: requires namespace")));
  request.set_namespace_("nowhere");
  EXPECT_THAT(api_->GetStateAt(request),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("did not exist at seq 1")));
}

TEST_F(AuditApiTest, ForensicQueriesRefuseBadInput) {
  ASSERT_OK(driver_->RunPhaseOne());
  v1::TimelineRequest timeline;
  timeline.set_namespace_("nowhere");
  timeline.set_name("nothing");
  EXPECT_THAT(api_->Timeline(timeline), StatusIs(absl::StatusCode::kNotFound));
  timeline.set_limit(10001);
  EXPECT_THAT(api_->Timeline(timeline),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("limit")));
  timeline.set_name("Not_A_Label");
  EXPECT_THAT(api_->Timeline(timeline),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name")));

  v1::DiffRequest diff;
  diff.mutable_from()->set_seq(5);
  EXPECT_THAT(api_->Diff(diff), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("to: required")));
  diff.mutable_to()->set_seq(4);
  EXPECT_THAT(api_->Diff(diff), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("to: seq 4 is before from seq 5")));

  v1::ValidCredentialsAtRequest valid;
  EXPECT_THAT(api_->ValidCredentialsAt(valid),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("time: required")));
}

TEST_F(AuditApiTest, TimelinePagesThroughATargetsHistory) {
  ASSERT_OK(driver_->RunPhaseOne());
  const auto events = Expected([](const auto& e) { return e.stream == "target/fleet-a/edge-1"; });
  ASSERT_GT(events.size(), 4u);

  v1::TimelineRequest request;
  request.set_namespace_("fleet-a");
  request.set_name("edge-1");
  ASSERT_OK_AND_ASSIGN(v1::TimelineResponse whole, api_->Timeline(request));
  EXPECT_THAT(whole.entries(), SizeIs(events.size()));
  EXPECT_EQ(whole.next_after_seq(), 0);

  request.set_limit(3);
  std::vector<int64_t> paged;
  while (true) {
    ASSERT_OK_AND_ASSIGN(v1::TimelineResponse page, api_->Timeline(request));
    EXPECT_LE(page.entries_size(), 3);
    for (const v1::TimelineEntry& entry : page.entries()) paged.push_back(entry.seq());
    if (page.next_after_seq() == 0) break;
    request.set_after_seq(page.next_after_seq());
  }
  EXPECT_THAT(paged, ElementsAreArray(Seqs(events)));
}

TEST_F(AuditApiTest, AnIdentityTimelineTellsWhichNamespacesHeldWhichCopyAndWhen) {
  ASSERT_OK(driver_->RunPhaseOne());
  IdentityCommandBus bus(store_.get());
  const auto run = [&](const IdentityCommand& command, const std::string& request_id,
                       const std::string& actor) {
    return bus.Execute(command, {"aws", clock_.Now(), actor, request_id}).status();
  };
  CreateIdentity create;
  create.spec.mutable_secret_ref()->set_namespace_("ops");
  create.spec.mutable_secret_ref()->set_name("aws-keys");
  create.spec.mutable_allowed_namespaces()->add_list("team-a");
  *create.review.mutable_secret() = create.spec.secret_ref();
  create.review.set_user("alice");
  create.review.set_allowed(true);
  ASSERT_OK(run(create, "id-create", "alice"));
  BindIdentity bind{"team-a", {}};
  bind.owner.set_api_version("batch/v1");
  bind.owner.set_kind("Job");
  bind.owner.set_name("plan");
  bind.owner.set_uid("0f8fad5b-d9cb-469f-a165-70867728950e");
  ASSERT_OK(run(bind, "id-bind", "alice"));
  const std::string first = "hmac-sha256:0123456789abcdef:" + std::string(64, 'a');
  const std::string second = "hmac-sha256:0123456789abcdef:" + std::string(64, 'b');
  v1::SecretRef mirror;
  mirror.set_name("captf-creds-aws");
  mirror.set_uid("mirror-uid");
  ASSERT_OK(run(ApplyMirrorOutcomes{{kubebridge::RecordSourceObserved{true, first, {"key"}, "1"},
                                     kubebridge::RecordMirrorWritten{
                                         "team-a", mirror, first, {bind.owner},
                                         v1::MIRROR_WRITE_KIND_CREATED, {}}}},
                "credledger:mirror-1", "credledger"));
  ASSERT_OK(run(ApplyMirrorOutcomes{{kubebridge::RecordSourceObserved{true, second, {"key"}, "2"},
                                     kubebridge::RecordMirrorWritten{
                                         "team-a", mirror, second, {bind.owner},
                                         v1::MIRROR_WRITE_KIND_UPDATED, {"data"}}}},
                "credledger:mirror-2", "credledger"));

  v1::TimelineRequest request;
  request.set_identity("aws");
  ASSERT_OK_AND_ASSIGN(v1::TimelineResponse timeline, api_->Timeline(request));
  std::vector<std::string> types;
  for (const v1::TimelineEntry& entry : timeline.entries()) {
    types.push_back(entry.event_type());
    EXPECT_EQ(entry.stream(), "identity/aws");
  }
  EXPECT_THAT(types, ::testing::ElementsAre("IdentityCreated", "IdentityBound",
                                            "SourceSecretObserved", "MirrorWritten",
                                            "SourceSecretObserved", "MirrorWritten"));
  ASSERT_THAT(timeline.entries(), SizeIs(6));
  EXPECT_EQ(timeline.entries(0).actor(), "alice");
  // Each copy names its namespace and the source fingerprint it held (12 hex characters of
  // its MAC).
  EXPECT_THAT(timeline.entries(3).summary(), HasSubstr("team-a"));
  EXPECT_THAT(timeline.entries(3).summary(), HasSubstr("source " + std::string(12, 'a')));
  EXPECT_THAT(timeline.entries(5).summary(), HasSubstr("source " + std::string(12, 'b')));

  v1::TimelineRequest both = request;
  both.set_namespace_("fleet-a");
  both.set_name("edge-1");
  EXPECT_THAT(api_->Timeline(both), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("identity")));
  request.set_identity("Not_A_Name");
  EXPECT_THAT(api_->Timeline(request), StatusIs(absl::StatusCode::kInvalidArgument,
                                                HasSubstr("identity")));
  request.set_identity("unknown");
  EXPECT_THAT(api_->Timeline(request), StatusIs(absl::StatusCode::kNotFound,
                                                HasSubstr("identity \"unknown\"")));
}

}  // namespace audit_api_test
}  // namespace credledger::service
