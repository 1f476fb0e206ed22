// The ClusterRole of docs/manifests/credledger-rbac.yaml holds exactly the rights credledger
// uses and hands out (docs/kubernetes.md, "Rights credledger needs"). The manifest's objects,
// parsed from the real file, are applied to the test Kubernetes API server, which enforces
// RBAC; a real credledger Server runs as the manifest's ServiceAccount (a kubeconfig holding
// that ServiceAccount's token) through every workflow that touches the cluster: a Target
// registered, rotated, confirmed, revoked and deleted; an identity whose source Secret is
// mirrored into a namespace, beside the Job bound there, after an access review (while the
// namespace list fails, so that a namespace is read directly, as before the first list
// arrives); a registered cluster whose
// references name a ConfigMap and a Secret; a call made with a ServiceAccount token. The API
// server's request recorder then shows every
// right credledger's identity used; the rights of the Role credledger hands to the agent count
// as needed (privilege escalation prevention).
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "audit/signing_key.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/credential_projector.h"
#include "projections/identity_projector.h"
#include "projections/identity_state.h"
#include "projections/target_state.h"
#include "service/server/server.h"
#include "test/integration/manifest_yaml.h"
#include "test/integration/rbac_rights.h"
#include "test/kubeapi/api_server.h"
#include "test/kubeapi/kubeconfig.h"
#include "test/kubeapi/request_recorder.h"
#include "test/support/bound_jobs.h"
#include "test/support/rbac_objects.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger {
namespace rbac_manifest_test {

using kubebridge::ResourceRef;
using kubebridge::StringAt;

constexpr char kRbacManifest[] = CREDLEDGER_MANIFESTS_DIR "/credledger-rbac.yaml";
constexpr char kTargetNs[] = "demo";
constexpr char kTarget[] = "edge-1";
constexpr char kRefs[] = "platform";  // source Secret, cluster CA ConfigMap and token Secret
constexpr char kMirrorNs[] = "team-a";
constexpr char kIdentity[] = "aws-prod";

// Where `object` (from a manifest) is created: its group, version and plural resource.
ResourceRef CollectionOf(const nlohmann::json& object) {
  const std::string api_version = object["apiVersion"];
  const std::string kind = object["kind"];
  std::vector<std::string> parts = absl::StrSplit(api_version, absl::MaxSplits('/', 1));
  ResourceRef ref;
  ref.group = parts.size() == 2 ? parts[0] : "";
  ref.version = parts.back();
  ref.resource = absl::StrCat(absl::AsciiStrToLower(kind), "s");
  const std::set<std::string> cluster_scoped = {"Namespace", "ClusterRole", "ClusterRoleBinding"};
  if (cluster_scoped.count(kind) == 0) {
    ref.namespace_name = StringAt(object, {"metadata", "namespace"});
  }
  return ref;
}

nlohmann::json SecretWith(const std::string& name, const std::string& key,
                          const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name}}},
          {"data", {{key, absl::Base64Escape(value)}}}};
}

class RbacManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    api.namespaces = {kTargetNs, kRefs, kMirrorNs};
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));
    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig admin_connection,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    kubebridge::KubeClientOptions client_options;
    client_options.rate_limit = {.qps = 0, .burst = 1};
    ASSERT_OK_AND_ASSIGN(admin_, kubebridge::KubeClient::New(admin_connection, client_options));

    ASSERT_OK_AND_ASSIGN(manifest_, testing::LoadManifest(kRbacManifest));
    for (const nlohmann::json& object : manifest_) {
      absl::Status created = admin_->Create(CollectionOf(object), object).status();
      ASSERT_TRUE(created.ok()) << object["kind"] << ": " << created;
    }
    const std::vector<nlohmann::json> accounts = testing::OfKind(manifest_, "ServiceAccount");
    ASSERT_EQ(accounts.size(), 1u) << "the manifest names one ServiceAccount";
    account_ns_ = StringAt(accounts[0], {"metadata", "namespace"});
    account_ = StringAt(accounts[0], {"metadata", "name"});
    WriteServiceAccountKubeconfig();
    CreateReferencedObjects();

    // The namespace list fails until the mirror exists, so the mirror bridge reads the
    // namespace directly, as it does before its namespace cache first synced.
    kubeapi::Fault namespace_list;
    namespace_list.method = "GET";
    namespace_list.path_prefix = "/api/v1/namespaces";
    namespace_list.exact_path = true;
    namespace_list.status_code = 503;
    api_->faults().Add(namespace_list);

    service::ServeOptions options;

    options.grpc.insecure_allow_all = true;
    options.log.db_path = dir_.path() / "var" / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.kube.kubeconfig = dir_.path() / "credledger-kubeconfig";
    options.kube.qps = 1000;
    options.kube.burst = 1000;
    options.credentials.agent_apiserver_url = api_->url();
    // The Lease fence as the deployment runs it; a short lease renews (updates) within the
    // test.
    options.lease.name = "credledger";
    options.lease.namespace_name = account_ns_;
    options.lease.duration = absl::Seconds(3);
    // The witness as the deployment runs it, in the ConfigMap the manifest creates.
    ASSERT_OK_AND_ASSIGN(audit::SigningKey key, audit::SigningKey::Generate());
    std::ofstream(dir_.path() / "signing-key.pem") << key.PrivatePem();
    options.audit.signing_key = dir_.path() / "signing-key.pem";
    options.audit.witness = absl::StrCat("kubernetes:", account_ns_, "/credledger-witness");
    ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(options));
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
    if (admin_ != nullptr) admin_->Stop();
  }

  // A kubeconfig whose user is the manifest's ServiceAccount (a TokenRequest as the admin).
  void WriteServiceAccountKubeconfig() {
    nlohmann::json request = {{"apiVersion", "authentication.k8s.io/v1"},
                              {"kind", "TokenRequest"},
                              {"spec", {{"expirationSeconds", 3600}}}};
    ASSERT_OK_AND_ASSIGN(
        nlohmann::json issued,
        admin_->CreateSubresource(kubebridge::ServiceAccountResource(account_ns_, account_),
                                  "token", request));
    kubeapi::KubeconfigSpec spec;
    spec.server = api_->url();
    spec.ca_pem = api_->ca_pem();
    spec.token = StringAt(issued, {"status", "token"});
    spec.namespace_name = account_ns_;
    ASSERT_FALSE(spec.token.empty());
    std::ofstream(dir_.path() / "credledger-kubeconfig") << kubeapi::RenderKubeconfig(spec);
  }

  // The source Secret of the identity (which user "alice" may read) and the label of the
  // namespace it is mirrored into; the CA ConfigMap and token Secret of a registered cluster
  // (the same API server, reached as the admin).
  void CreateReferencedObjects() {
    const ResourceRef mirror_ns{"", "v1", "namespaces", "", kMirrorNs};
    ASSERT_OK_AND_ASSIGN(nlohmann::json ns, admin_->Get(mirror_ns));
    ns["metadata"]["labels"] = {{"env", "prod"}};
    ASSERT_OK(admin_->Update(mirror_ns, ns).status());
    ASSERT_OK(admin_
                  ->Create(kubebridge::SecretResource(kRefs),
                           SecretWith("aws-keys", "access_key", "AKIA-rbac-test-0001"))
                  .status());
    ASSERT_OK(admin_
                  ->Create(kubebridge::RoleResource(kRefs),
                           testing::SecretReaderRole("read-aws-keys", "aws-keys"))
                  .status());
    ASSERT_OK(admin_
                  ->Create(kubebridge::RoleBindingResource(kRefs),
                           testing::RoleBindingTo("alice-reads", "read-aws-keys", "User", "alice"))
                  .status());
    ASSERT_OK(admin_
                  ->Create(ResourceRef{"", "v1", "configmaps", kRefs, ""},
                           {{"apiVersion", "v1"},
                            {"kind", "ConfigMap"},
                            {"metadata", {{"name", "edge-ca"}}},
                            {"data", {{"ca.crt", api_->ca_pem()}}}})
                  .status());
    ASSERT_OK(admin_
                  ->Create(kubebridge::SecretResource(kRefs),
                           SecretWith("edge-token", "token", api_->admin_token()))
                  .status());
  }

  std::string User() const {
    return absl::StrCat("system:serviceaccount:", account_ns_, ":", account_);
  }

  // The rights granted to credledger's ServiceAccount by the manifest's bindings.
  std::set<Right> GrantedRights() const {
    std::set<Right> granted;
    for (const char* kind : {"ClusterRoleBinding", "RoleBinding"}) {
      for (const nlohmann::json& binding : testing::OfKind(manifest_, kind)) {
        bool bound = false;
        for (const nlohmann::json& subject : binding.value("subjects", nlohmann::json::array())) {
          bound = bound || (subject.value("kind", "") == "ServiceAccount" &&
                            subject.value("name", "") == account_ &&
                            subject.value("namespace", "") == account_ns_);
        }
        if (!bound) continue;
        const std::string role_kind = StringAt(binding, {"roleRef", "kind"});
        const std::string role_name = StringAt(binding, {"roleRef", "name"});
        std::vector<nlohmann::json> roles = testing::OfKind(manifest_, role_kind);
        bool found = false;
        for (const nlohmann::json& role : roles) {
          if (StringAt(role, {"metadata", "name"}) != role_name) continue;
          found = true;
          std::set<Right> rights =
              RightsOf(role.value("rules", nlohmann::json::array()), role_name);
          granted.insert(rights.begin(), rights.end());
        }
        EXPECT_TRUE(found) << kind << " refers to " << role_kind << " " << role_name
                           << ", which the manifest lacks";
      }
    }
    return granted;
  }

  // Polls `done` (bounded) and fails the test with `what` when it never holds.
  static void Await(const std::function<bool()>& done, const std::string& what) {
    if (!WaitUntil(done)) ADD_FAILURE() << "timed out waiting for: " << what;
  }

  // Polls `done` for up to 15 s; returns whether it held.
  static bool WaitUntil(const std::function<bool()>& done) {
    const absl::Time give_up = absl::Now() + absl::Seconds(15);
    while (!done()) {
      if (absl::Now() >= give_up) return false;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return true;
  }

  // Waits until the Target's projected state satisfies `done`; returns that state.
  v1::TargetState AwaitTarget(const std::function<bool(const v1::TargetState&)>& done,
                              const std::string& what) {
    v1::TargetState state;
    Await(
        [&] {
          state = server_->projector()->Get(kTargetNs, kTarget).value_or(v1::TargetState());
          return done(state);
        },
        what);
    return state;
  }

  // A context for one call by "alice" with a 20 s deadline, alive until the test ends.
  // Without an authorization policy, "alice" is also the Kubernetes user of access reviews.
  grpc::ClientContext* Context() {
    contexts_.push_back(std::make_unique<grpc::ClientContext>());
    contexts_.back()->AddMetadata("credledger-actor", "alice");
    contexts_.back()->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    return contexts_.back().get();
  }

  std::string NextRequestId() { return absl::StrCat("rbac-", ++requests_); }

  // The identity workflow: an access review, then the source mirrored into kMirrorNs, which
  // the identity's selector allows.
  void MirrorTheSource() {
    auto identities = v1::IdentityService::NewStub(channel_);
    v1::CreateIdentityRequest create;
    create.set_request_id(NextRequestId());
    create.set_name(kIdentity);
    create.mutable_spec()->mutable_secret_ref()->set_namespace_(kRefs);
    create.mutable_spec()->mutable_secret_ref()->set_name("aws-keys");
    // A selector: only then are namespace labels read.
    v1::Label* env =
        create.mutable_spec()->mutable_allowed_namespaces()->mutable_selector()->add_match_labels();
    env->set_key("env");
    env->set_value("prod");
    v1::IdentityChangeResponse changed;
    grpc::Status status = identities->CreateIdentity(Context(), create, &changed);
    ASSERT_TRUE(status.ok()) << status.error_message();
    v1::BindIdentityRequest bind;
    bind.set_request_id(NextRequestId());
    bind.set_identity(kIdentity);
    bind.set_namespace_(kMirrorNs);
    // A Job the bridge reads (by uid) before it writes the mirror that references it.
    ASSERT_OK_AND_ASSIGN(v1::OwnerReference job, testing::CreateJob(*admin_, kMirrorNs, "plan"));
    *bind.mutable_owner() = job;
    status = identities->BindIdentity(Context(), bind, &changed);
    ASSERT_TRUE(status.ok()) << status.error_message();
    Await(
        [&] {
          std::optional<v1::IdentityState> state =
              server_->identity_projector()->GetIdentity(kIdentity);
          const v1::IdentityNamespaceState* entry =
              state.has_value() ? projections::FindIdentityNamespace(*state, kMirrorNs) : nullptr;
          return entry != nullptr && entry->has_mirror() &&
                 entry->credentials_mirrored().status() == "True";
        },
        "the source mirrored into team-a");
  }

  // The agent's ServiceAccount, Role and RoleBinding.
  static std::vector<ResourceRef> IdentityObjects() {
    const std::string name = kubebridge::AgentIdentityName(kTarget);
    return {kubebridge::ServiceAccountResource(kTargetNs, name),
            kubebridge::RoleResource(kTargetNs, name),
            kubebridge::RoleBindingResource(kTargetNs, name)};
  }

  // Whether the object `ref` carries credledger's label.
  bool Labelled(const ResourceRef& ref) {
    absl::StatusOr<nlohmann::json> live = admin_->Get(ref);
    return live.ok() && StringAt(*live, {"metadata", "labels", kubebridge::kManagedByLabel}) ==
                            kubebridge::kManagedByValue;
  }

  // Removes credledger's label from the agent's identity objects, so that the next
  // reconcile pass repairs them (a server-side apply, which is a patch).
  void DriftIdentityObjects() {
    for (const ResourceRef& ref : IdentityObjects()) {
      ASSERT_OK_AND_ASSIGN(nlohmann::json live, admin_->Get(ref));
      live["metadata"]["labels"].erase(kubebridge::kManagedByLabel);
      ASSERT_OK(admin_->Update(ref, live).status());
    }
  }

  // The rights of the Role credledger created for the Target's agent.
  std::set<Right> HandedOutRights() {
    const std::string name = kubebridge::AgentIdentityName(kTarget);
    absl::StatusOr<nlohmann::json> role = admin_->Get(kubebridge::RoleResource(kTargetNs, name));
    EXPECT_OK(role.status());
    return role.ok() ? RightsOf((*role)["rules"], name) : std::set<Right>();
  }

  // Calls TargetService `method` for the Target with a fresh request id.
  template <typename Request, typename Response>
  void CallTarget(grpc::Status (v1::TargetService::Stub::*method)(grpc::ClientContext*,
                                                                  const Request&, Response*),
                  Request request) {
    request.set_namespace_(kTargetNs);
    request.set_name(kTarget);
    request.set_request_id(NextRequestId());
    Response response;
    auto targets = v1::TargetService::NewStub(channel_);
    grpc::Status status = (targets.get()->*method)(Context(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  // The Target workflow: register (mint), drift and rotate (repair and second mint),
  // confirm (the first Secret deleted), revoke, delete.
  void RunTheTargetLifecycle(std::set<Right>* handed_out) {
    using Stub = v1::TargetService::Stub;
    ASSERT_NO_FATAL_FAILURE(CallTarget(&Stub::RegisterTarget, v1::RegisterTargetRequest()));
    v1::TargetState state = AwaitTarget(
        [](const v1::TargetState& s) { return projections::CurrentCredential(s) != nullptr; },
        "the first credential");
    const std::string first = projections::CurrentCredential(state)->secret().name();

    ASSERT_NO_FATAL_FAILURE(DriftIdentityObjects());
    v1::RequestRotationRequest rotate;
    rotate.set_value("r1");
    ASSERT_NO_FATAL_FAILURE(CallTarget(&Stub::RequestRotation, rotate));
    state = AwaitTarget(
        [&](const v1::TargetState& s) {
          const v1::CredentialRecord* current = projections::CurrentCredential(s);
          return current != nullptr && current->secret().name() != first;
        },
        "the rotated credential");
    // The pass that minted it may have started before the drift; the rotation's own pass
    // repairs the objects.
    Await(
        [&] {
          for (const ResourceRef& ref : IdentityObjects()) {
            if (!Labelled(ref)) return false;
          }
          return true;
        },
        "the identity objects repaired");
    *handed_out = HandedOutRights();

    v1::ConfirmRolloutRequest confirm;
    confirm.set_revision(
        absl::StrCat("1.0.0-", projections::CurrentCredential(state)->credential_tag()));
    ASSERT_NO_FATAL_FAILURE(CallTarget(&Stub::ConfirmRollout, confirm));
    AwaitTarget(
        [&](const v1::TargetState& s) {
          for (const v1::CredentialRecord& c : s.credentials()) {
            if (c.secret().name() == first) return false;
          }
          return true;
        },
        "the superseded Secret deleted");

    v1::RevokeRequest revoke;
    revoke.set_reason("rbac manifest test");
    ASSERT_NO_FATAL_FAILURE(CallTarget(&Stub::Revoke, revoke));
    AwaitTarget([](const v1::TargetState& s) { return s.revoked() && s.credentials_size() == 0; },
                "every Secret deleted on revoke");

    ASSERT_NO_FATAL_FAILURE(CallTarget(&Stub::DeleteTarget, v1::DeleteTargetRequest()));
    AwaitTarget(
        [](const v1::TargetState& s) { return s.phase() == v1::TargetState::PHASE_FINALIZED; },
        "the Target finalized");
  }

  // A registered cluster whose CA is a ConfigMap and whose token is a Secret, probed.
  void ProbeARegisteredCluster() {
    auto clusters = v1::ClusterService::NewStub(channel_);
    v1::RegisterClusterRequest reg;
    reg.set_request_id(NextRequestId());
    reg.set_name("edge");
    v1::ClusterSpec& spec = *reg.mutable_spec();
    spec.set_namespace_(kRefs);
    spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
    spec.mutable_agentless()->set_server(api_->url());
    spec.mutable_agentless()->mutable_ca_ref()->set_kind("ConfigMap");
    spec.mutable_agentless()->mutable_ca_ref()->set_name("edge-ca");
    spec.mutable_agentless()->mutable_auth()->set_type("token");
    spec.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
        "edge-token");
    v1::ClusterChangeResponse changed;
    grpc::Status status = clusters->RegisterCluster(Context(), reg, &changed);
    ASSERT_TRUE(status.ok()) << status.error_message();
    v1::ProbeClusterRequest probe;
    probe.set_name("edge");
    v1::GetClusterResponse probed;
    status = clusters->ProbeCluster(Context(), probe, &probed);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(probed.cluster().cluster().reachable().reason(), "ProbeSucceeded")
        << probed.cluster().cluster().reachable().message();
  }

  // A call made with a projected token of the manifest's ServiceAccount (audience
  // "credledger"), which credledger reviews with a TokenReview.
  void CallWithAServiceAccountToken() {
    nlohmann::json request = {
        {"apiVersion", "authentication.k8s.io/v1"},
        {"kind", "TokenRequest"},
        {"spec", {{"audiences", {"credledger"}}, {"expirationSeconds", 600}}}};
    ASSERT_OK_AND_ASSIGN(
        nlohmann::json issued,
        admin_->CreateSubresource(kubebridge::ServiceAccountResource(account_ns_, account_),
                                  "token", request));
    grpc::ClientContext context;  // no declared name: the token names the caller
    context.AddMetadata("authorization",
                        absl::StrCat("Bearer ", StringAt(issued, {"status", "token"})));
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::ListTargetsResponse listed;
    const grpc::Status status =
        v1::TargetService::NewStub(channel_)->ListTargets(&context, {}, &listed);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> admin_;
  std::vector<nlohmann::json> manifest_;
  std::string account_ns_;
  std::string account_;
  std::unique_ptr<service::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts_;
  int requests_ = 0;
};

TEST_F(RbacManifestTest, CredledgerUsesEveryRightOfItsClusterRoleAndIsRefusedNone) {
  ASSERT_NO_FATAL_FAILURE(MirrorTheSource());
  api_->faults().Clear();
  std::set<Right> handed_out;
  ASSERT_NO_FATAL_FAILURE(RunTheTargetLifecycle(&handed_out));
  ASSERT_NO_FATAL_FAILURE(ProbeARegisteredCluster());
  ASSERT_NO_FATAL_FAILURE(CallWithAServiceAccountToken());

  const std::set<Right> granted = GrantedRights();
  std::set<Right> used;
  std::set<Right> unused;
  std::vector<std::string> refused;
  // Watches open in the background (the namespace list-and-watch only after its backoff),
  // so the requests are read until every right shows up or the wait ends; judged below.
  WaitUntil([&] {
    used.clear();
    unused.clear();
    refused.clear();
    for (const kubeapi::RequestCount& c : api_->requests().CountsOf(User())) {
      if (c.resource.empty()) continue;  // discovery and /version: every user may
      if (c.code == 403) {
        refused.push_back(absl::StrCat(c.verb, " ", c.group, " ", c.resource, " x", c.count));
      } else {
        used.insert({c.group, c.resource, c.verb});
      }
    }
    for (const Right& r : granted) {
      if (used.count(r) == 0 && handed_out.count(r) == 0) unused.insert(r);
    }
    return unused.empty();
  });
  EXPECT_TRUE(refused.empty()) << "refused: " << absl::StrJoin(refused, "; ");

  // Kubernetes lets credledger create the agent's Role only when credledger holds every
  // right that Role grants (privilege escalation prevention); the test API server does not
  // check that, so the test does.
  std::set<Right> not_held;
  for (const Right& r : handed_out) {
    if (granted.count(r) == 0) not_held.insert(r);
  }
  EXPECT_TRUE(not_held.empty()) << "handed out but not held: " << Describe(not_held);

  EXPECT_TRUE(unused.empty()) << "granted but neither used nor handed out: " << Describe(unused)
                              << "\nused: " << Describe(used)
                              << "\nhanded out: " << Describe(handed_out);
}

}  // namespace rbac_manifest_test
}  // namespace credledger
