// The TargetService RPCs end to end: a real Server (SQLite file, projector, command bus)
// on 127.0.0.1 port 0, called over a real gRPC channel. Without the kube bridge nothing mints
// credentials; where a test needs one, it reports the bridge's outcomes through the command
// bus itself, as the bridge would.
#include <string>

#include "gmock/gmock.h"
#include "projections/target_state.h"
#include "service/decide/target_commands.h"
#include "service/decide/validation.h"
#include "store/event_codec.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace target_api_integration_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using Stub = v1::TargetService::Stub;

constexpr char kUid[] = "0f8fad5b-d9cb-469f-a165-70867728950e";

class TargetApiIntegrationTest : public ApiFixture {
 protected:
  // The decoded events of demo/<name>'s stream.
  std::vector<v1::Event> StreamEvents(const std::string& name) {
    auto recorded =
        server_->event_store()->ReadStream(projections::TargetStream("demo", name), 0, 100);
    EXPECT_OK(recorded);
    std::vector<v1::Event> events;
    for (const store::RecordedEvent& r : *recorded) {
      auto event = store::EventCodec::Default().Decode(r);
      EXPECT_OK(event);
      events.push_back(*event);
    }
    return events;
  }

  // Reports a bridge outcome for demo/edge-1 and waits until reads reflect it.
  void Bridge(const service::TargetCommand& command, const std::string& request_id) {
    service::CommandContext context{"demo", "edge-1", absl::Now(), "credledger", request_id,
                                    server_->projector()->service()};
    auto result = server_->command_bus()->Execute(command, context);
    ASSERT_OK(result);
    ASSERT_FALSE(result->events.empty());
    ASSERT_TRUE(server_->projector()->WaitForSeq(result->events.back().seq, absl::Seconds(10)));
  }

  // Creates and issues credential Secret solar-agent-edge-1-<suffix> for `attempt_id`.
  void Issue(const std::string& attempt_id, int suffix, const std::string& secret_uid) {
    v1::SecretRef secret;
    secret.set_name(absl::StrCat("solar-agent-edge-1-", suffix));
    secret.set_uid(secret_uid);
    service::RecordSecretCreated created;
    created.attempt_id = attempt_id;
    created.secret = secret;
    created.suffix = suffix;
    Bridge(created, absl::StrCat("bridge-create-", attempt_id));
    service::RecordCredentialIssued issued;
    issued.attempt_id = attempt_id;
    issued.secret = secret;
    issued.token_fingerprint = "f1f2f3f4f5f6f7f8";
    issued.issued_at = issued_at_;
    issued.expires_at = issued_at_ + absl::Hours(24);
    Bridge(issued, absl::StrCat("bridge-issue-", attempt_id));
  }

  // Whole seconds, so that the API's timestamps compare exactly.
  const absl::Time issued_at_ = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()));

  v1::ConfirmRolloutResponse Confirm(const std::string& revision, const std::string& request_id) {
    v1::ConfirmRolloutRequest request;
    request.set_namespace_("demo");
    request.set_name("edge-1");
    request.set_request_id(request_id);
    request.set_revision(revision);
    v1::ConfirmRolloutResponse response;
    grpc::Status status = Call(&Stub::ConfirmRollout, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

TEST_F(TargetApiIntegrationTest, RegisterGetAndListShowTheTargetAwaitingItsFirstCredential) {
  v1::RegisterTargetResponse registered = Register("demo", "edge-1", "req-1", kUid);
  EXPECT_FALSE(registered.replayed());
  EXPECT_EQ(registered.seq(), HeadSeq());
  const v1::Target& t = registered.target();
  EXPECT_EQ(t.uid(), kUid);
  EXPECT_EQ(t.phase(), "Active");
  EXPECT_EQ(t.agent_credential_ready().type(), "AgentCredentialReady");
  EXPECT_EQ(t.agent_credential_ready().status(), "Unknown");
  EXPECT_EQ(t.agent_credential_ready().reason(), "MintPending");
  EXPECT_EQ(t.open_mint_attempt_id(), "m1");
  EXPECT_FALSE(t.has_current_credential());
  EXPECT_EQ(t.last_seq(), registered.seq());

  std::vector<v1::Event> events = StreamEvents("edge-1");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[0].has_target_registered());
  EXPECT_TRUE(events[1].has_credential_mint_requested());
  auto recorded = server_->event_store()->ReadStream("target/demo/edge-1", 0, 10);
  ASSERT_OK(recorded);
  auto metadata = store::EventCodec::DecodeMetadata(recorded->front());
  ASSERT_OK(metadata);
  // Declared with --as on loopback: recorded as declared.
  EXPECT_EQ(metadata->actor(), "declared:alice");
  EXPECT_EQ(metadata->request_id(), "req-1");

  v1::GetTargetRequest get;
  get.set_namespace_("demo");
  get.set_name("edge-1");
  v1::GetTargetResponse got;
  ASSERT_TRUE(Call(&Stub::GetTarget, get, &got).ok());
  EXPECT_EQ(got.target().SerializeAsString(), t.SerializeAsString());

  Register("other", "edge-2", "req-2");
  v1::ListTargetsRequest list;
  v1::ListTargetsResponse listed;
  ASSERT_TRUE(Call(&Stub::ListTargets, list, &listed).ok());
  ASSERT_EQ(listed.targets_size(), 2);
  EXPECT_EQ(listed.targets(0).name(), "edge-1");
  EXPECT_EQ(listed.targets(1).name(), "edge-2");
  EXPECT_EQ(listed.seq(), HeadSeq());
  list.set_namespace_("other");
  ASSERT_TRUE(Call(&Stub::ListTargets, list, &listed).ok());
  ASSERT_EQ(listed.targets_size(), 1);
  EXPECT_EQ(listed.targets(0).namespace_(), "other");
}

TEST_F(TargetApiIntegrationTest, RegisterWithoutUidGeneratesALowercaseVersion4Uid) {
  const std::string uid = Register("demo", "edge-1", "req-1").target().uid();
  EXPECT_OK(service::ValidateUid("uid", uid));
  EXPECT_EQ(uid[14], '4');
  EXPECT_NE(Register("demo", "edge-2", "req-2").target().uid(), uid);
}

TEST_F(TargetApiIntegrationTest, RetriedRequestAppendsNothingAndReturnsTheOriginalAnswer) {
  v1::RegisterTargetResponse first = Register("demo", "edge-1", "req-1");
  const int64_t head = HeadSeq();
  v1::RegisterTargetResponse retried = Register("demo", "edge-1", "req-1");
  EXPECT_TRUE(retried.replayed());
  EXPECT_EQ(retried.seq(), first.seq());
  EXPECT_EQ(retried.target().uid(), first.target().uid());
  EXPECT_EQ(HeadSeq(), head);

  v1::RequestRotationRequest rotate;
  rotate.set_namespace_("demo");
  rotate.set_name("edge-1");
  rotate.set_request_id("rot-1");
  v1::RequestRotationResponse rotated, again;
  ASSERT_TRUE(Call(&Stub::RequestRotation, rotate, &rotated).ok());
  const int64_t after_rotation = HeadSeq();
  ASSERT_TRUE(Call(&Stub::RequestRotation, rotate, &again).ok());
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.seq(), rotated.seq());
  EXPECT_EQ(HeadSeq(), after_rotation);
}

TEST_F(TargetApiIntegrationTest, BadInputIsRejectedNamingTheFieldAndAppendsNothing) {
  Register("demo", "edge-1", "req-1");
  const int64_t head = HeadSeq();
  auto expect = [&](const grpc::Status& status, grpc::StatusCode code, const std::string& prefix) {
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    EXPECT_THAT(status.error_message(), StartsWith(prefix));
    EXPECT_EQ(HeadSeq(), head);
  };
  v1::RegisterTargetResponse registered;
  auto register_request = [](std::string ns, std::string name, std::string id, std::string uid) {
    v1::RegisterTargetRequest r;
    r.set_namespace_(ns);
    r.set_name(name);
    r.set_request_id(id);
    r.set_uid(uid);
    return r;
  };
  const auto invalid = grpc::StatusCode::INVALID_ARGUMENT;
  expect(Call(&Stub::RegisterTarget, register_request("Demo", "a", "r2", ""), &registered),
         invalid, "namespace: \"Demo\" is not a DNS-1123 label");
  expect(Call(&Stub::RegisterTarget, register_request("demo", "edge_1", "r2", ""), &registered),
         invalid, "name: \"edge_1\" is not a DNS-1123 label");
  expect(Call(&Stub::RegisterTarget, register_request("demo", "", "r2", ""), &registered),
         invalid, "name: required");
  expect(Call(&Stub::RegisterTarget, register_request("demo", "b", "r2", "ABC"), &registered),
         invalid, "uid: \"ABC\" is not a lowercase RFC 4122 UUID");
  expect(Call(&Stub::RegisterTarget, register_request("demo", "b", "", ""), &registered), invalid,
         "request_id: required");
  expect(Call(&Stub::RegisterTarget, register_request("demo", "b", std::string(129, 'x'), ""),
              &registered),
         invalid, "request_id: 129 bytes; at most 128");
  expect(Call(&Stub::RegisterTarget, register_request("demo", "b", "r2", ""), &registered,
              "bad actor"),
         grpc::StatusCode::UNAUTHENTICATED, "credledger-actor: only printable ASCII");

  v1::RequestRotationRequest rotate;
  rotate.set_namespace_("demo");
  rotate.set_name("ghost");
  rotate.set_request_id("r3");
  v1::RequestRotationResponse rotated;
  expect(Call(&Stub::RequestRotation, rotate, &rotated), grpc::StatusCode::NOT_FOUND,
         "target \"demo/ghost\": not found");
  v1::GetTargetRequest get;
  get.set_namespace_("demo");
  get.set_name("ghost");
  v1::GetTargetResponse got;
  expect(Call(&Stub::GetTarget, get, &got), grpc::StatusCode::NOT_FOUND,
         "target \"demo/ghost\": not found");

  v1::ConfirmRolloutRequest confirm;
  confirm.set_namespace_("demo");
  confirm.set_name("edge-1");
  confirm.set_request_id("r4");
  v1::ConfirmRolloutResponse confirmed;
  expect(Call(&Stub::ConfirmRollout, confirm, &confirmed), invalid, "revision: required");
  confirm.set_revision("1.0.0-abc");
  expect(Call(&Stub::ConfirmRollout, confirm, &confirmed),
         grpc::StatusCode::FAILED_PRECONDITION,
         "target \"demo/edge-1\": has no current credential");
}

TEST_F(TargetApiIntegrationTest, ReRegisteringAnActiveTargetWithAnotherUidIsAFailedPrecondition) {
  Register("demo", "edge-1", "req-1", kUid);
  const int64_t head = HeadSeq();
  v1::RegisterTargetRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("req-2");
  request.set_uid("11111111-2222-4333-8444-555555555555");
  v1::RegisterTargetResponse response;
  grpc::Status status = Call(&Stub::RegisterTarget, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr(kUid));
  EXPECT_EQ(HeadSeq(), head);

  // The same uid again (or none) is already satisfied: nothing appended, not a replay.
  request.set_uid(kUid);
  ASSERT_TRUE(Call(&Stub::RegisterTarget, request, &response).ok());
  EXPECT_FALSE(response.replayed());
  EXPECT_EQ(response.seq(), 0);
  EXPECT_EQ(HeadSeq(), head);
}

TEST_F(TargetApiIntegrationTest, RotationValueDefaultsToTheRequestId) {
  Register("demo", "edge-1", "req-1");
  v1::RequestRotationRequest rotate;
  rotate.set_namespace_("demo");
  rotate.set_name("edge-1");
  rotate.set_request_id("rot-1");
  v1::RequestRotationResponse rotated;
  ASSERT_TRUE(Call(&Stub::RequestRotation, rotate, &rotated).ok());
  EXPECT_EQ(rotated.seq(), HeadSeq());
  rotate.set_request_id("rot-2");
  rotate.set_value("explicit-value");
  ASSERT_TRUE(Call(&Stub::RequestRotation, rotate, &rotated).ok());

  std::vector<std::string> values;
  for (const v1::Event& e : StreamEvents("edge-1")) {
    if (e.has_rotation_requested()) values.push_back(e.rotation_requested().request_value());
  }
  EXPECT_THAT(values, ElementsAre("rot-1", "explicit-value"));
}

TEST_F(TargetApiIntegrationTest, RevokeEndsTheMintAndLiftStartsAFreshOne) {
  Register("demo", "edge-1", "req-1");
  v1::RevokeRequest revoke;
  revoke.set_namespace_("demo");
  revoke.set_name("edge-1");
  revoke.set_request_id("rev-1");
  revoke.set_reason("laptop stolen");
  v1::RevokeResponse revoked;
  ASSERT_TRUE(Call(&Stub::Revoke, revoke, &revoked).ok());
  EXPECT_TRUE(revoked.target().revoked());
  EXPECT_EQ(revoked.target().agent_credential_ready().status(), "False");
  EXPECT_EQ(revoked.target().agent_credential_ready().reason(), "Revoked");
  EXPECT_THAT(revoked.target().open_mint_attempt_id(), IsEmpty());
  EXPECT_EQ(StreamEvents("edge-1").back().target_revoked().reason(), "laptop stolen");

  revoke.set_request_id("rev-2");  // already revoked: nothing to do
  ASSERT_TRUE(Call(&Stub::Revoke, revoke, &revoked).ok());
  EXPECT_EQ(revoked.seq(), 0);

  v1::LiftRevocationRequest lift;
  lift.set_namespace_("demo");
  lift.set_name("edge-1");
  lift.set_request_id("lift-1");
  v1::LiftRevocationResponse lifted;
  ASSERT_TRUE(Call(&Stub::LiftRevocation, lift, &lifted).ok());
  EXPECT_FALSE(lifted.target().revoked());
  EXPECT_EQ(lifted.target().open_mint_attempt_id(), "m2");
  EXPECT_EQ(lifted.target().agent_credential_ready().reason(), "MintPending");
}

TEST_F(TargetApiIntegrationTest, DeleteMovesTheTargetToDeletingOnce) {
  Register("demo", "edge-1", "req-1");
  v1::DeleteTargetRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("del-1");
  v1::DeleteTargetResponse response;
  ASSERT_TRUE(Call(&Stub::DeleteTarget, request, &response).ok());
  EXPECT_EQ(response.target().phase(), "Deleting");
  EXPECT_GT(response.seq(), 0);
  request.set_request_id("del-2");
  ASSERT_TRUE(Call(&Stub::DeleteTarget, request, &response).ok());
  EXPECT_EQ(response.seq(), 0);
  EXPECT_EQ(response.target().phase(), "Deleting");
}

TEST_F(TargetApiIntegrationTest, AnonymousIsTheActorWhenTheCallerDeclaresNone) {
  v1::RegisterTargetRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("req-1");
  v1::RegisterTargetResponse response;
  ASSERT_TRUE(Call(&Stub::RegisterTarget, request, &response, /*actor=*/"").ok());
  auto recorded = server_->event_store()->ReadStream("target/demo/edge-1", 0, 10);
  ASSERT_OK(recorded);
  auto metadata = store::EventCodec::DecodeMetadata(recorded->front());
  ASSERT_OK(metadata);
  EXPECT_EQ(metadata->actor(), "anonymous");
}

TEST_F(TargetApiIntegrationTest, GetShowsTheCurrentCredentialAndConfirmReleasesOlderSecrets) {
  Register("demo", "edge-1", "req-1");
  Issue("m1", 1, "aaaaaaaa-0000-4000-8000-000000000001");
  const std::string hash = projections::ConnectionHash(kAgentUrl, kAgentCa);
  const std::string tag1 = projections::CredentialTag("aaaaaaaa-0000-4000-8000-000000000001");

  v1::GetTargetRequest get;
  get.set_namespace_("demo");
  get.set_name("edge-1");
  v1::GetTargetResponse got;
  ASSERT_TRUE(Call(&Stub::GetTarget, get, &got).ok());
  const v1::TargetCredential& c = got.target().current_credential();
  EXPECT_EQ(c.secret_name(), "solar-agent-edge-1-1");
  EXPECT_EQ(c.credential_tag(), tag1);
  EXPECT_EQ(c.connection_hash(), hash);
  EXPECT_EQ(c.chart_version_suffix(), absl::StrCat("-", hash, "-", tag1));
  const int64_t issued = absl::ToUnixSeconds(issued_at_);
  EXPECT_EQ(c.issued_at().seconds(), issued);
  EXPECT_EQ(c.expires_at().seconds(), issued + 86400);
  EXPECT_EQ(c.rotation_due_at().seconds(), issued + 86400 * 8 / 10);
  EXPECT_EQ(got.target().agent_credential_ready().status(), "True");
  EXPECT_EQ(got.target().agent_credential_ready().reason(), "Issued");
  EXPECT_THAT(got.SerializeAsString(), ::testing::Not(HasSubstr("f1f2f3f4f5f6f7f8")));

  v1::RequestRotationRequest rotate;
  rotate.set_namespace_("demo");
  rotate.set_name("edge-1");
  rotate.set_request_id("rot-1");
  v1::RequestRotationResponse rotated;
  ASSERT_TRUE(Call(&Stub::RequestRotation, rotate, &rotated).ok());
  EXPECT_EQ(rotated.target().open_mint_attempt_id(), "m2");
  Issue("m2", 2, "aaaaaaaa-0000-4000-8000-000000000002");
  ASSERT_TRUE(Call(&Stub::GetTarget, get, &got).ok());
  EXPECT_EQ(got.target().current_credential().secret_name(), "solar-agent-edge-1-2");
  EXPECT_THAT(got.target().older_secret_names(), ElementsAre("solar-agent-edge-1-1"));

  // A revision with the older tag proves nothing: no error, nothing released or appended.
  const int64_t head = HeadSeq();
  v1::ConfirmRolloutResponse stale = Confirm(absl::StrCat("1.0.0-", hash, "-", tag1), "conf-1");
  EXPECT_THAT(stale.released_secrets(), IsEmpty());
  EXPECT_EQ(stale.seq(), 0);
  EXPECT_EQ(HeadSeq(), head);

  const std::string tag2 = got.target().current_credential().credential_tag();
  v1::ConfirmRolloutResponse current = Confirm(absl::StrCat("1.0.0-", hash, "-", tag2), "conf-2");
  EXPECT_THAT(current.released_secrets(), ElementsAre("solar-agent-edge-1-1"));
  EXPECT_EQ(current.seq(), HeadSeq());
  v1::ConfirmRolloutResponse retried = Confirm(absl::StrCat("1.0.0-", hash, "-", tag2), "conf-2");
  EXPECT_TRUE(retried.replayed());
  EXPECT_THAT(retried.released_secrets(), ElementsAre("solar-agent-edge-1-1"));
}

}  // namespace target_api_integration_test
}  // namespace credledger::testing
