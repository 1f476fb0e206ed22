// MirrorIntegrationFixture: a real credledger Server (SQLite file, gRPC on 127.0.0.1 port 0)
// whose kube bridge talks to the test Kubernetes API server over HTTPS, with a source Secret
// captf-system/aws-keys that the caller alice may read, namespaces team-a to team-d, and
// helpers to call IdentityService and to wait for the projected identity (docs/mirrors.md).
#pragma once

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
#include "test/support/bound_jobs.h"
#include "test/support/rbac_objects.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger {
namespace mirror_integration_test {

using kubebridge::StringAt;

inline constexpr char kIdentity[] = "aws-prod";
inline constexpr char kSourceNs[] = "captf-system";
inline constexpr char kSourceName[] = "aws-keys";
inline constexpr char kAccessKey[] = "AKIA-mirror-test-0001";
inline constexpr char kSecretKey[] = "mirror-test-secret-value-0001";

inline constexpr char kPolicy[] = R"(identities:
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

inline kubebridge::ResourceRef Namespaces() { return {"", "v1", "namespaces", "", ""}; }

class MirrorIntegrationFixture : public ::testing::Test {
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

  // Creates the Job `name` in `ns` (deleting an earlier one first: a new incarnation) and
  // returns it as an owner to bind.
  v1::OwnerReference Job(const std::string& ns, const std::string& name) {
    absl::Status gone = client_->Delete(testing::JobResource(ns, name));
    EXPECT_TRUE(gone.ok() || absl::IsNotFound(gone)) << gone;
    absl::StatusOr<v1::OwnerReference> job = testing::CreateJob(*client_, ns, name);
    EXPECT_OK(job.status());
    return job.ok() ? *job : v1::OwnerReference();
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

}  // namespace mirror_integration_test
}  // namespace credledger
