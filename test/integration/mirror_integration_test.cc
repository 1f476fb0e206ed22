// Credential mirrors end to end (docs/mirrors.md, "How a change propagates" and "Conditions"):
// a real credledger Server (SQLite file, gRPC on 127.0.0.1 port 0) whose kube bridge talks to
// the test Kubernetes API server over HTTPS. Identities are created and bound through
// IdentityService; the mirrors are checked in the cluster and the conditions through the API.
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/fingerprint_key.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_bridge.h"
#include "projections/identity_projector.h"
#include "projections/identity_state.h"
#include "projections/mirror_naming.h"
#include "service/server/server.h"
#include "store/event_codec.h"
#include "store/event_store.h"
#include "test/kubeapi/api_server.h"
#include "test/support/rbac_objects.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger {
namespace mirror_integration_test {

using kubebridge::StringAt;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kIdentity[] = "aws-prod";
constexpr char kSourceNs[] = "captf-system";
constexpr char kSourceName[] = "aws-keys";
constexpr char kAccessKey[] = "AKIA-mirror-test-0001";
constexpr char kSecretKey[] = "mirror-test-secret-value-0001";
// Owner uids: Kubernetes object uids, lowercase RFC 4122 UUIDs.
constexpr char kPlanUid1[] = "5a0f3c1e-8b2d-4e6f-9a7b-1c2d3e4f5a61";
constexpr char kPlanUid2[] = "5a0f3c1e-8b2d-4e6f-9a7b-1c2d3e4f5a62";
constexpr char kApplyUid1[] = "6b1e4d2f-9c3e-4f70-8b8c-2d3e4f5a6b71";
constexpr char kUid1[] = "7c2f5e30-ad4f-4081-9c9d-3e4f5a6b7c81";
constexpr char kUid2[] = "7c2f5e30-ad4f-4081-9c9d-3e4f5a6b7c82";

constexpr char kPolicy[] = R"(identities:
  - name: alice
    rpcs: ["IdentityService/*", "AuditService/*"]
    allow_declared: true
    kubernetes:
      user: alice-k8s
      groups: [platform]
  - name: mallory
    rpcs: ["IdentityService/*"]
    allow_declared: true
    kubernetes:
      user: mallory-k8s
)";

kubebridge::ResourceRef Namespaces() { return {"", "v1", "namespaces", "", ""}; }

class MirrorIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));
    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig connection,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    kubebridge::KubeClientOptions client_options;
    client_options.rate_limit = {.qps = 0, .burst = 1};
    ASSERT_OK_AND_ASSIGN(client_, kubebridge::KubeClient::New(connection, client_options));

    for (const char* ns : {kSourceNs, "team-a", "team-b", "team-c", "team-d"}) {
      CreateNamespace(ns, {});
    }
    ASSERT_OK(client_->Create(kubebridge::SecretResource(kSourceNs), Source(kAccessKey, kSecretKey))
                  .status());
    // alice-k8s may get the source Secret; mallory-k8s may not.
    ASSERT_OK(client_
                  ->Create(kubebridge::RoleResource(kSourceNs),
                           testing::SecretReaderRole("read-aws-keys", kSourceName))
                  .status());
    ASSERT_OK(client_
                  ->Create(kubebridge::RoleBindingResource(kSourceNs),
                           testing::RoleBindingTo("alice-reads-aws-keys", "read-aws-keys", "User",
                                                  "alice-k8s"))
                  .status());

    std::ofstream(dir_.path() / "policy.yaml") << kPolicy;
    service::ServeOptions options;
    options.log.db_path = dir_.path() / "var" / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.kube.kubeconfig = api_->kubeconfig_path();
    options.kube.qps = 1000;
    options.kube.burst = 1000;
    options.grpc.authorization_policy = dir_.path() / "policy.yaml";
    ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(options));
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    stub_ = v1::IdentityService::NewStub(channel_);
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
    if (client_ != nullptr) client_->Stop();
  }

  static nlohmann::json Source(const std::string& access_key, const std::string& secret_key) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", kSourceName}}},
            {"type", "Opaque"},
            {"data",
             {{"access_key", absl::Base64Escape(access_key)},
              {"secret_key", absl::Base64Escape(secret_key)}}}};
  }

  void CreateNamespace(const std::string& name, const nlohmann::json& labels) {
    nlohmann::json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    if (!labels.empty()) ns["metadata"]["labels"] = labels;
    ASSERT_OK(client_->Create(Namespaces(), ns).status());
  }

  void Relabel(const std::string& name, const nlohmann::json& labels) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json live, client_->Get(Namespaces().WithName(name)));
    live["metadata"]["labels"] = labels;
    ASSERT_OK(client_->Update(Namespaces().WithName(name), live).status());
  }

  void RotateSource(const std::string& access_key, const std::string& secret_key) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json live,
                         client_->Get(kubebridge::SecretResource(kSourceNs, kSourceName)));
    nlohmann::json next = Source(access_key, secret_key);
    next["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"];
    ASSERT_OK(client_->Update(kubebridge::SecretResource(kSourceNs, kSourceName), next).status());
  }

  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (v1::IdentityService::Stub::*method)(grpc::ClientContext*,
                                                                      const Request&, Response*),
                    const Request& request, Response* response,
                    const std::string& actor = "alice") {
    grpc::ClientContext context;
    context.AddMetadata("credledger-actor", actor);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    return (stub_.get()->*method)(&context, request, response);
  }

  static v1::IdentitySpec ListSpec(std::initializer_list<const char*> namespaces) {
    v1::IdentitySpec spec;
    spec.mutable_secret_ref()->set_namespace_(kSourceNs);
    spec.mutable_secret_ref()->set_name(kSourceName);
    for (const char* ns : namespaces) spec.mutable_allowed_namespaces()->add_list(ns);
    return spec;
  }

  grpc::Status Create(const v1::IdentitySpec& spec, const std::string& actor = "alice") {
    v1::CreateIdentityRequest request;
    request.set_request_id(NextRequestId());
    request.set_name(kIdentity);
    *request.mutable_spec() = spec;
    v1::IdentityChangeResponse response;
    return Call(&v1::IdentityService::Stub::CreateIdentity, request, &response, actor);
  }

  grpc::Status Update(const v1::IdentitySpec& spec) {
    v1::UpdateIdentityRequest request;
    request.set_request_id(NextRequestId());
    request.set_name(kIdentity);
    *request.mutable_spec() = spec;
    v1::IdentityChangeResponse response;
    return Call(&v1::IdentityService::Stub::UpdateIdentity, request, &response);
  }

  static v1::OwnerReference Job(const std::string& name, const std::string& uid) {
    v1::OwnerReference owner;
    owner.set_api_version("batch/v1");
    owner.set_kind("Job");
    owner.set_name(name);
    owner.set_uid(uid);
    return owner;
  }

  grpc::Status Bind(const std::string& ns, const v1::OwnerReference& owner) {
    v1::BindIdentityRequest request;
    request.set_request_id(NextRequestId());
    request.set_identity(kIdentity);
    request.set_namespace_(ns);
    *request.mutable_owner() = owner;
    v1::IdentityChangeResponse response;
    return Call(&v1::IdentityService::Stub::BindIdentity, request, &response);
  }

  grpc::Status Unbind(const std::string& ns, const v1::OwnerReference& owner) {
    v1::UnbindIdentityRequest request;
    request.set_request_id(NextRequestId());
    request.set_identity(kIdentity);
    request.set_namespace_(ns);
    *request.mutable_owner() = owner;
    v1::IdentityChangeResponse response;
    return Call(&v1::IdentityService::Stub::UnbindIdentity, request, &response);
  }

  grpc::Status Delete() {
    v1::DeleteIdentityRequest request;
    request.set_request_id(NextRequestId());
    request.set_name(kIdentity);
    v1::IdentityChangeResponse response;
    return Call(&v1::IdentityService::Stub::DeleteIdentity, request, &response);
  }

  v1::IdentityState Get() {
    v1::GetIdentityRequest request;
    request.set_name(kIdentity);
    v1::GetIdentityResponse response;
    grpc::Status status = Call(&v1::IdentityService::Stub::GetIdentity, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.identity();
  }

  // Waits (bounded) until the projected identity satisfies `done`.
  v1::IdentityState WaitFor(const std::function<bool(const v1::IdentityState&)>& done,
                            const std::string& what) {
    projections::IdentityProjector* projector = server_->identity_projector();
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (absl::Now() < give_up) {
      const int64_t seq = projector->seq();
      std::optional<v1::IdentityState> state = projector->GetIdentity(kIdentity);
      if (state.has_value() && done(*state)) return *state;
      projector->WaitForSeq(seq + 1, absl::Milliseconds(200));
    }
    ADD_FAILURE() << "timed out waiting for: " << what;
    return projector->GetIdentity(kIdentity).value_or(v1::IdentityState());
  }

  static const v1::IdentityNamespaceState* Ns(const v1::IdentityState& s, const std::string& ns) {
    return projections::FindIdentityNamespace(s, ns);
  }
  // The source's data as the cluster and the log name it: the plain hash of the mirrors'
  // captf.io/source-hash annotation, and the fingerprint under the service's key.
  struct Digests {
    std::string hash;
    std::string fingerprint;
  };
  static bool Mirrored(const v1::IdentityState& s, const std::string& ns, const Digests& digests) {
    const v1::IdentityNamespaceState* entry = Ns(s, ns);
    return entry != nullptr && entry->has_mirror() &&
           entry->mirror().source_fingerprint() == digests.fingerprint &&
           entry->credentials_mirrored().status() == "True";
  }
  static bool NoMirror(const v1::IdentityState& s, const std::string& ns) {
    const v1::IdentityNamespaceState* entry = Ns(s, ns);
    return entry == nullptr || !entry->has_mirror();
  }

  // The mirror Secret in `ns`, or a null JSON when there is none.
  nlohmann::json MirrorIn(const std::string& ns) {
    absl::StatusOr<nlohmann::json> secret = client_->Get(
        kubebridge::SecretResource(ns, projections::MirrorSecretName(kIdentity)));
    if (absl::IsNotFound(secret.status())) return nullptr;
    EXPECT_OK(secret.status());
    return secret.ok() ? *secret : nlohmann::json();
  }

  // The digests of the source data {access_key, secret_key}; the fingerprint under the key
  // serve made beside the database at its first start (docs/operations.md, "The fingerprint
  // key").
  Digests DigestsOf(const std::string& access_key, const std::string& secret_key) {
    const std::vector<std::pair<std::string, std::string>> data = {{"access_key", access_key},
                                                                   {"secret_key", secret_key}};
    absl::StatusOr<common::FingerprintKey> key =
        common::FingerprintKey::LoadFile(dir_.path() / "var" / "fingerprint-key");
    EXPECT_OK(key.status());
    return {projections::SourceHash(data),
            key.ok() ? projections::SourceFingerprint(*key, data) : std::string()};
  }

  // Types of the identity stream's events, short names, in order.
  std::vector<std::string> StreamTypes() {
    std::vector<std::string> types;
    auto events =
        server_->event_store()->ReadStream(projections::IdentityStream(kIdentity), 0, 10000);
    EXPECT_OK(events);
    if (!events.ok()) return types;
    for (const auto& e : *events) types.push_back(e.type.substr(e.type.rfind('.') + 1));
    return types;
  }

  std::string NextRequestId() { return absl::StrCat("req-", ++request_count_); }

  testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> client_;
  std::unique_ptr<service::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::IdentityService::Stub> stub_;
  int request_count_ = 0;
};

TEST_F(MirrorIntegrationTest, BindingMirrorsTheSourceWithLabelsAnnotationsAndOwnerReferences) {
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("plan", kPlanUid1)).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  v1::IdentityState state =
      WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash); }, "mirror in team-a");
  EXPECT_EQ(Ns(state, "team-a")->identity_allowed().reason(), "NamespaceAllowed");
  EXPECT_EQ(Ns(state, "team-a")->credentials_mirrored().reason(), "Mirrored");

  nlohmann::json mirror = MirrorIn("team-a");
  ASSERT_TRUE(mirror.is_object());
  EXPECT_EQ(StringAt(mirror, {"type"}), "Opaque");
  EXPECT_EQ(StringAt(mirror, {"metadata", "labels", "captf.io/mirrored"}), "true");
  EXPECT_EQ(StringAt(mirror, {"metadata", "labels", "captf.io/managed"}), "true");
  EXPECT_EQ(StringAt(mirror, {"metadata", "annotations", "captf.io/source-hash"}), hash.hash);
  EXPECT_EQ(StringAt(mirror, {"metadata", "annotations", "captf.io/identity"}), kIdentity);
  EXPECT_EQ(StringAt(mirror, {"data", "access_key"}), absl::Base64Escape(kAccessKey));
  EXPECT_EQ(StringAt(mirror, {"data", "secret_key"}), absl::Base64Escape(kSecretKey));
  const nlohmann::json& refs = mirror["metadata"]["ownerReferences"];
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0]["uid"], kPlanUid1);
  EXPECT_EQ(refs[0]["kind"], "Job");
  EXPECT_FALSE(refs[0].contains("controller"));
  EXPECT_FALSE(refs[0].contains("blockOwnerDeletion"));

  // A second object adds its reference; a re-created object replaces its older uid.
  ASSERT_TRUE(Bind("team-a", Job("apply", kApplyUid1)).ok());
  ASSERT_TRUE(Bind("team-a", Job("plan", kPlanUid2)).ok());
  WaitFor(
      [&](const auto& s) {
        const v1::IdentityNamespaceState* entry = Ns(s, "team-a");
        return entry != nullptr && entry->mirror().owners_size() == 2 &&
               entry->mirror().owners(1).uid() == kPlanUid2;
      },
      "two owner references, the newer uid");
  std::vector<std::string> uids;
  const nlohmann::json updated = MirrorIn("team-a");
  for (const auto& ref : updated["metadata"]["ownerReferences"]) {
    uids.push_back(ref["uid"]);
  }
  EXPECT_THAT(uids, ElementsAre(kApplyUid1, kPlanUid2));
}

TEST_F(MirrorIntegrationTest, ARotatedSourceReachesEveryMirrorWithinSeconds) {
  ASSERT_TRUE(Create(ListSpec({"team-a", "team-b"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("plan", kUid1)).ok());
  ASSERT_TRUE(Bind("team-b", Job("plan", kUid2)).ok());
  const Digests before = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", before) && Mirrored(s, "team-b", before); },
          "both mirrors");

  const absl::Time rotated = absl::Now();
  RotateSource("AKIA-rotated-0002", "rotated-secret-0002");
  const Digests after = DigestsOf("AKIA-rotated-0002", "rotated-secret-0002");
  // The source watch, not the 10-minute resync, carries the change.
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", after) && Mirrored(s, "team-b", after); },
          "both mirrors rotated");
  EXPECT_LT(absl::Now() - rotated, absl::Seconds(10));
  for (const char* ns : {"team-a", "team-b"}) {
    nlohmann::json mirror = MirrorIn(ns);
    EXPECT_EQ(StringAt(mirror, {"data", "access_key"}), absl::Base64Escape("AKIA-rotated-0002"));
    EXPECT_EQ(StringAt(mirror, {"metadata", "annotations", "captf.io/source-hash"}), after.hash);
  }
}

TEST_F(MirrorIntegrationTest, NarrowingTheListDeletesThatMirrorAndReportsNamespaceNotAllowed) {
  ASSERT_TRUE(Create(ListSpec({"team-a", "team-b"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("plan", kUid1)).ok());
  ASSERT_TRUE(Bind("team-b", Job("plan", kUid2)).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash) && Mirrored(s, "team-b", hash); },
          "both mirrors");

  ASSERT_TRUE(Update(ListSpec({"team-a"})).ok());
  v1::IdentityState state = WaitFor([&](const auto& s) { return NoMirror(s, "team-b"); },
                                    "team-b's mirror deleted");
  EXPECT_TRUE(MirrorIn("team-b").is_null());
  EXPECT_TRUE(MirrorIn("team-a").is_object());
  ASSERT_NE(Ns(state, "team-b"), nullptr);  // still bound
  EXPECT_EQ(Ns(state, "team-b")->identity_allowed().status(), "False");
  EXPECT_EQ(Ns(state, "team-b")->identity_allowed().reason(), "NamespaceNotAllowed");
  EXPECT_EQ(Ns(state, "team-b")->credentials_mirrored().status(), "False");
}

TEST_F(MirrorIntegrationTest, RelabellingANamespaceOutOfTheSelectorRevokesItsMirror) {
  v1::IdentitySpec spec = ListSpec({});
  v1::Label* env = spec.mutable_allowed_namespaces()->mutable_selector()->add_match_labels();
  env->set_key("env");
  env->set_value("prod");
  Relabel("team-c", {{"env", "prod"}});
  ASSERT_TRUE(Create(spec).ok());
  ASSERT_TRUE(Bind("team-c", Job("plan", kUid1)).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-c", hash); }, "mirror in team-c");

  Relabel("team-c", {{"env", "dev"}});
  v1::IdentityState state = WaitFor([&](const auto& s) { return NoMirror(s, "team-c"); },
                                    "team-c's mirror deleted after relabelling");
  EXPECT_TRUE(MirrorIn("team-c").is_null());
  EXPECT_EQ(Ns(state, "team-c")->identity_allowed().reason(), "NamespaceNotAllowed");
  EXPECT_THAT(StreamTypes(), ::testing::Contains("NamespaceLabelsObserved"));
}

TEST_F(MirrorIntegrationTest, AForeignSecretWithTheMirrorsNameIsNeverTouched) {
  const std::string name = projections::MirrorSecretName(kIdentity);
  ASSERT_OK_AND_ASSIGN(
      nlohmann::json foreign,
      client_->Create(kubebridge::SecretResource("team-d"),
                      {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", {{"name", name}}},
                       {"data", {{"mine", absl::Base64Escape("keep me")}}}}));
  ASSERT_TRUE(Create(ListSpec({"team-d"})).ok());
  ASSERT_TRUE(Bind("team-d", Job("plan", kUid1)).ok());
  v1::IdentityState state = WaitFor(
      [&](const auto& s) {
        const v1::IdentityNamespaceState* entry = Ns(s, "team-d");
        return entry != nullptr && entry->credentials_mirrored().reason() == "MirrorFailed";
      },
      "MirrorFailed in team-d");
  EXPECT_EQ(Ns(state, "team-d")->credentials_mirrored().status(), "False");
  EXPECT_THAT(Ns(state, "team-d")->credentials_mirrored().message(), HasSubstr("rename or remove"));
  nlohmann::json live = MirrorIn("team-d");
  EXPECT_EQ(live["metadata"]["resourceVersion"], foreign["metadata"]["resourceVersion"]);
  EXPECT_EQ(StringAt(live, {"data", "mine"}), absl::Base64Escape("keep me"));

  // Unbinding does not delete it either.
  ASSERT_TRUE(Unbind("team-d", Job("plan", "")).ok());
  WaitFor([&](const auto& s) { return Ns(s, "team-d") == nullptr; }, "team-d dropped");
  ASSERT_TRUE(server_->mirror_bridge()->WaitIdle(absl::Seconds(10)));
  EXPECT_TRUE(MirrorIn("team-d").is_object());
}

TEST_F(MirrorIntegrationTest, TheLastUnbindRemovesTheMirrorAndOnlyThenMayTheIdentityGo) {
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("plan", kUid1)).ok());
  ASSERT_TRUE(Bind("team-a", Job("apply", kUid2)).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash); }, "mirror");

  grpc::Status refused = Delete();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("team-a"));

  ASSERT_TRUE(Unbind("team-a", Job("plan", "")).ok());
  WaitFor([&](const auto& s) { return Ns(s, "team-a")->mirror().owners_size() == 1; },
          "one owner left");
  EXPECT_TRUE(MirrorIn("team-a").is_object());
  ASSERT_TRUE(Unbind("team-a", Job("apply", kUid2)).ok());
  WaitFor([&](const auto& s) { return Ns(s, "team-a") == nullptr; }, "mirror deleted");
  EXPECT_TRUE(MirrorIn("team-a").is_null());

  EXPECT_TRUE(Delete().ok());
  EXPECT_THAT(StreamTypes(), ::testing::Contains("MirrorDeleted"));
  EXPECT_EQ(StreamTypes().back(), "IdentityDeleted");
}

TEST_F(MirrorIntegrationTest, ACallerWhoMayNotReadTheSourceIsRefusedAndNothingIsAppended) {
  const int64_t head = server_->event_store()->HeadSeq();
  grpc::Status denied = Create(ListSpec({"team-a"}), "mallory");
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(), HasSubstr("mallory-k8s"));
  EXPECT_THAT(denied.error_message(), HasSubstr("captf-system/aws-keys"));
  EXPECT_EQ(server_->event_store()->HeadSeq(), head);

  // The same spec by a caller the cluster lets read the Secret is accepted, and the review
  // is recorded with the event.
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  v1::IdentityState state = Get();
  EXPECT_EQ(state.access_review().user(), "alice-k8s");
  EXPECT_THAT(state.access_review().groups(), ElementsAre("platform"));
  EXPECT_TRUE(state.access_review().allowed());
}

// Reads a whole file (empty when it does not exist).
std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST_F(MirrorIntegrationTest, SourceDataNeverReachesTheLogTheExportOrTheApi) {
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("plan", kUid1)).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash); }, "mirror");
  RotateSource("AKIA-rotated-0003", "rotated-secret-0003");
  WaitFor(
      [&](const auto& s) {
        return Mirrored(s, "team-a", DigestsOf("AKIA-rotated-0003", "rotated-secret-0003"));
      },
      "rotated");

  std::string api_text;
  v1::ListMirrorsResponse mirrors;
  ASSERT_TRUE(Call(&v1::IdentityService::Stub::ListMirrors, v1::ListMirrorsRequest(), &mirrors)
                  .ok());
  api_text = mirrors.SerializeAsString() + Get().SerializeAsString();

  auto audit = v1::AuditService::NewStub(channel_);
  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "alice");
  v1::ExportEventsRequest request;
  std::unique_ptr<grpc::ClientReader<v1::ExportEventsResponse>> reader =
      audit->ExportEvents(&context, request);
  std::string exported;
  v1::ExportEventsResponse item;
  while (reader->Read(&item)) exported += item.SerializeAsString();
  ASSERT_TRUE(reader->Finish().ok());
  // The log names the data by its fingerprint; the plain hash stays in the cluster.
  EXPECT_THAT(exported, HasSubstr(hash.fingerprint));
  EXPECT_THAT(exported, Not(HasSubstr(hash.hash)));
  EXPECT_THAT(api_text, Not(HasSubstr(hash.hash)));

  server_->Shutdown();
  const std::filesystem::path db = dir_.path() / "var" / "credledger.db";
  const std::string log = Slurp(db) + Slurp(db.string() + "-wal");
  ASSERT_FALSE(log.empty());
  for (const std::string& value : {std::string(kAccessKey), std::string(kSecretKey),
                                   std::string("AKIA-rotated-0003"),
                                   std::string("rotated-secret-0003"),
                                   absl::Base64Escape(kSecretKey)}) {
    EXPECT_FALSE(absl::StrContains(log, value)) << value;
    EXPECT_FALSE(absl::StrContains(exported, value)) << value;
    EXPECT_FALSE(absl::StrContains(api_text, value)) << value;
  }
}

}  // namespace mirror_integration_test
}  // namespace credledger
