// Target scopes and declared names through a real Server over a real gRPC channel
// (docs/api.md, "Target scopes" and "Declared names"). Callers declare names on loopback; the
// policy lets the scoped entries be matched by declared names so that one plaintext channel
// can play every caller.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "store/event_codec.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace target_scope_integration_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kAgentA[] = "spiffe://corp/agent/demo/edge-a";

constexpr char kPolicy[] = R"(identities:
  - name: oncall
    rpcs: ["TargetService/*", "ReportService/*"]
    allow_declared: true
  - name: spiffe://corp/agent/*
    rpcs: ["ReportService/*", "TargetService/GetTarget", "TargetService/ListTargets",
           "TargetService/WatchTargets", "TargetService/RequestRotation", "AuditService/*"]
    targets: ["{identity-suffix}"]
    allow_declared: true
  - name: controller
    rpcs: ["TargetService/*"]
  - name: "*"
    rpcs: ["TargetService/ListTargets"]
    targets: ["public/*", "{identity-suffix}"]
)";

class TargetScopeIntegrationTest : public ApiFixture {
 protected:
  void SetUp() override {
    ApiFixture::SetUp();
    RestartWithPolicy(kPolicy);
    reports_ = v1::ReportService::NewStub(channel_);
    for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
             {"demo", "edge-a"}, {"demo", "edge-b"}, {"public", "p1"}}) {
      v1::RegisterTargetRequest request;
      request.set_namespace_(ns);
      request.set_name(name);
      request.set_request_id(absl::StrCat("register-", ns, "-", name));
      v1::RegisterTargetResponse response;
      const grpc::Status status =
          Call(&v1::TargetService::Stub::RegisterTarget, request, &response, "oncall");
      ASSERT_TRUE(status.ok()) << status.error_message();
    }
    ASSERT_TRUE(server_->status_projector()->WaitForSeq(HeadSeq(), absl::Seconds(20)));
  }

  grpc::Status Get(const std::string& ns, const std::string& name, const std::string& actor) {
    v1::GetTargetRequest request;
    request.set_namespace_(ns);
    request.set_name(name);
    v1::GetTargetResponse response;
    return Call(&v1::TargetService::Stub::GetTarget, request, &response, actor);
  }

  // "<namespace>/<name>" of every Target ListTargets shows `actor`.
  std::vector<std::string> Listed(const std::string& actor) {
    v1::ListTargetsResponse response;
    const grpc::Status status =
        Call(&v1::TargetService::Stub::ListTargets, v1::ListTargetsRequest(), &response, actor);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::string> names;
    for (const v1::Target& target : response.targets()) {
      names.push_back(absl::StrCat(target.namespace_(), "/", target.name()));
    }
    return names;
  }

  std::unique_ptr<v1::ReportService::Stub> reports_;
};

TEST_F(TargetScopeIntegrationTest, OutsideItsScopeACallIsRefusedBeforeAnythingElse) {
  EXPECT_TRUE(Get("demo", "edge-a", kAgentA).ok());
  const int64_t head = HeadSeq();
  const grpc::Status other = Get("demo", "edge-b", kAgentA);
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(other.error_message(), HasSubstr("its Targets are demo/edge-a"));
  // The scope is checked before the request is validated: a bad name is refused, not
  // diagnosed.
  EXPECT_EQ(Get("Demo", "edge-a", kAgentA).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::RequestRotationRequest rotate;
  rotate.set_namespace_("demo");
  rotate.set_name("edge-b");
  rotate.set_request_id("rotate-b");
  v1::RequestRotationResponse rotated;
  EXPECT_EQ(Call(&v1::TargetService::Stub::RequestRotation, rotate, &rotated, kAgentA).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(HeadSeq(), head);
}

TEST_F(TargetScopeIntegrationTest, ListsAndFleetCountsShowOnlyTheScope) {
  EXPECT_THAT(Listed(kAgentA), ElementsAre("demo/edge-a"));
  EXPECT_THAT(Listed("oncall"), ElementsAre("demo/edge-a", "demo/edge-b", "public/p1"));

  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", kAgentA);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  v1::ListFleetStatusResponse fleet;
  const grpc::Status status =
      reports_->ListFleetStatus(&context, v1::ListFleetStatusRequest(), &fleet);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(fleet.targets_size(), 1);
  EXPECT_EQ(fleet.targets(0).name(), "edge-a");
  EXPECT_EQ(fleet.summary().targets(), 1);
}

TEST_F(TargetScopeIntegrationTest, AWatchSendsOnlyTheScopesTargets) {
  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", kAgentA);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  std::unique_ptr<grpc::ClientReader<v1::WatchTargetsResponse>> reader =
      stub_->WatchTargets(&context, v1::WatchTargetsRequest());
  // A change of edge-b, then one of edge-a: only the latter reaches the watch.
  for (const std::string name : {"edge-b", "edge-a"}) {
    v1::RevokeRequest revoke;
    revoke.set_namespace_("demo");
    revoke.set_name(name);
    revoke.set_request_id(absl::StrCat("revoke-", name));
    v1::RevokeResponse revoked;
    const grpc::Status status = Call(&v1::TargetService::Stub::Revoke, revoke, &revoked, "oncall");
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  const int64_t last = HeadSeq();
  std::vector<std::string> seen;
  v1::WatchTargetsResponse item;
  while (reader->Read(&item)) {
    if (item.has_target())
      seen.push_back(absl::StrCat(item.target().name(), "@", static_cast<int>(item.kind())));
    if (item.kind() == v1::WatchTargetsResponse::KIND_CHANGE && item.seq() >= last) break;
  }
  context.TryCancel();
  while (reader->Read(&item)) {
  }
  reader->Finish();
  ASSERT_FALSE(seen.empty());
  for (const std::string& name : seen) EXPECT_THAT(name, ::testing::StartsWith("edge-a@"));
  EXPECT_EQ(seen.back(),
            absl::StrCat("edge-a@", static_cast<int>(v1::WatchTargetsResponse::KIND_CHANGE)));
}

// The audit RPCs answer a scoped caller only about one Target of its scope; an export, which
// answers from the whole log, is refused.
TEST_F(TargetScopeIntegrationTest, AuditRpcsAnswerAScopedCallerOnlyAboutItsOwnTargets) {
  std::unique_ptr<v1::AuditService::Stub> audit = v1::AuditService::NewStub(channel_);
  auto timeline = [&](const std::string& name) {
    grpc::ClientContext context;
    context.AddMetadata("credledger-actor", kAgentA);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::TimelineRequest request;
    request.set_namespace_(name.empty() ? "" : "demo");
    request.set_name(name);
    if (name.empty()) request.set_identity("aws");
    v1::TimelineResponse response;
    return audit->Timeline(&context, request, &response);
  };
  const grpc::Status own = timeline("edge-a");
  EXPECT_TRUE(own.ok()) << own.error_message();
  EXPECT_EQ(timeline("edge-b").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(timeline("").error_code(), grpc::StatusCode::PERMISSION_DENIED);

  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", kAgentA);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  std::unique_ptr<grpc::ClientReader<v1::ExportEventsResponse>> reader =
      audit->ExportEvents(&context, v1::ExportEventsRequest());
  v1::ExportEventsResponse batch;
  EXPECT_FALSE(reader->Read(&batch));
  const grpc::Status exported = reader->Finish();
  EXPECT_EQ(exported.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(exported.error_message(), HasSubstr("but for one Target of its own"));
}

TEST_F(TargetScopeIntegrationTest, ADeclaredNameMatchesOnlyEntriesThatAllowDeclaredNames) {
  // "controller" is an entry of its own, but it does not allow declared names: declaring it
  // gets the "*" entry, whose {identity-suffix} a declared name does not fill.
  v1::RegisterTargetRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-c");
  request.set_request_id("register-c");
  v1::RegisterTargetResponse response;
  EXPECT_EQ(
      Call(&v1::TargetService::Stub::RegisterTarget, request, &response, "controller").error_code(),
      grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(Listed("controller"), ElementsAre("public/p1"));
  EXPECT_THAT(Listed("demo/edge-a"), ElementsAre("public/p1"));
}

TEST_F(TargetScopeIntegrationTest, EventsRecordADeclaredNameAsDeclared) {
  absl::StatusOr<std::vector<store::RecordedEvent>> recorded =
      server_->event_store()->ReadStream("target/demo/edge-a", 0, 1);
  ASSERT_OK(recorded);
  ASSERT_EQ(recorded->size(), 1u);
  absl::StatusOr<v1::EventMetadata> metadata = store::EventCodec::DecodeMetadata(recorded->front());
  ASSERT_OK(metadata);
  EXPECT_EQ(metadata->actor(), "declared:oncall");
}

}  // namespace target_scope_integration_test
}  // namespace credledger::testing
