// ClusterApi without gRPC, on a real SQLite log with the cluster and identity projectors
// following it: input validation naming the field (and appending nothing), registration,
// reads, request-id replay, one spec written two ways (default keys; a kubeconfig cluster's
// server and CA) being one spec, deregistration refused while an identity mirrors into the
// cluster, probes through a fake probe function recording real outcomes, and the views'
// last probe time.
#include "service/api/cluster_api.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/event_codec.h"
#include "test/service/cluster_api_fixture.h"
#include "test/service/cluster_fixtures.h"

namespace credledger::service {
namespace cluster_api_test {

using google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::StatusIs;
using v1::ClusterState;

using ClusterApiTest = ClusterApiFixture;

TEST_F(ClusterApiTest, BadInputNamesTheFieldAndAppendsNothing) {
  const int64_t head = store_->HeadSeq();
  using Mutate = std::function<void(v1::RegisterClusterRequest&)>;
  auto on_spec = [](std::function<void(v1::ClusterSpec&)> mutate) -> Mutate {
    return [mutate](v1::RegisterClusterRequest& r) { mutate(*r.mutable_spec()); };
  };
  auto on_agentless = [&](std::function<void(v1::AgentlessConnection&)> mutate) {
    return on_spec([mutate](v1::ClusterSpec& s) { mutate(*s.mutable_agentless()); });
  };
  auto on_auth = [&](std::function<void(v1::ClusterAuth&)> mutate) {
    return on_agentless([mutate](v1::AgentlessConnection& a) { mutate(*a.mutable_auth()); });
  };
  struct Case {
    Mutate mutate;
    std::string message;
    std::string actor = "alice";
  };
  const std::vector<Case> cases = {
      {Mutate([](auto& r) { r.set_name("Edge_1"); }), "name:"},
      {Mutate([](auto& r) { r.set_name(std::string(64, 'a')); }), "name:"},
      {Mutate([](auto& r) { r.set_request_id(""); }), "request_id: required"},
      {Mutate([](auto& r) { r.set_request_id("credledger:x"); }), "request_id: the prefix"},
      {Mutate([](auto&) {}), "credledger-actor", "bad actor"},
      {on_spec([](auto& s) { s.clear_connection_mode(); }), "spec.connection_mode: required"},
      {on_spec([](auto& s) { s.set_connection_mode(v1::ClusterConnectionMode(9)); }),
       "spec.connection_mode"},
      {on_spec([](auto& s) { s.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER); }),
       "spec.agentless: must be unset for connection mode inCluster"},
      {on_spec([](auto& s) {
         s.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
         s.clear_agentless();
         s.set_namespace_("Fleet");
       }),
       "spec.namespace:"},
      {on_spec([](auto& s) { s.clear_namespace_(); }), "spec.namespace: required"},
      {on_spec([](auto& s) { s.clear_agentless(); }),
       "spec.agentless: required for connection mode agentless"},
      {on_auth([](auto& a) { a.clear_type(); }), "spec.agentless.auth.type: required"},
      {on_auth([](auto& a) { a.set_type("1token"); }), "spec.agentless.auth.type:"},
      {on_auth([](auto& a) { a.set_type("client-cert"); }), "spec.agentless.auth.type:"},
      {on_auth([](auto& a) { a.set_type(std::string(64, 'a')); }), "spec.agentless.auth.type:"},
      {on_agentless([](auto& a) { a.clear_server(); }), "spec.agentless.server: required"},
      {on_agentless([](auto& a) { a.set_server("http://edge-1.example"); }),
       "spec.agentless.server: \"http://edge-1.example\" is not an https:// URL"},
      {on_agentless([](auto& a) { a.set_server("https://edge-1.example/a b"); }),
       "spec.agentless.server: must not contain whitespace"},
      {on_agentless([](auto& a) { a.set_server("https://"); }),
       "spec.agentless.server: has no host"},
      {on_agentless([](auto& a) { a.set_server("https://" + std::string(2041, 'a')); }),
       "spec.agentless.server: 2049 bytes; at most 2048"},
      {on_agentless([](auto& a) { a.mutable_ca_ref()->set_kind("Pod"); }),
       "spec.agentless.ca_ref.kind: \"Pod\" is not a kind"},
      // A long value is cut, and says so.
      {on_agentless([](auto& a) { a.mutable_ca_ref()->set_kind(std::string(30, 'P')); }),
       "spec.agentless.ca_ref.kind: \"PPPPPPPPPPPPPPPPPPPP...\" (30 bytes) is not a kind"},
      {on_agentless([](auto& a) { a.mutable_ca_ref()->set_name("Edge CA"); }),
       "spec.agentless.ca_ref.name:"},
      {on_agentless([](auto& a) { a.mutable_ca_ref()->set_key("ca/crt"); }),
       "spec.agentless.ca_ref.key:"},
      {on_auth([](auto& a) { a.mutable_token()->mutable_secret_ref()->set_name(""); }),
       "spec.agentless.auth.token.secret_ref.name: required"},
      {on_auth([](auto& a) { a.mutable_token()->mutable_secret_ref()->set_key(".."); }),
       "spec.agentless.auth.token.secret_ref.key:"},
      {on_auth([](auto& a) {
         a.set_type("kubeconfig");
         a.clear_token();
         a.mutable_kubeconfig()->mutable_secret_ref()->set_name("A");
       }),
       "spec.agentless.auth.kubeconfig.secret_ref.name:"},
      {on_auth([](auto& a) {
         a.set_type("clientCert");
         a.clear_token();
         a.mutable_client_cert()->set_secret_name("");
       }),
       "spec.agentless.auth.client_cert.secret_name: required"},
      {on_auth([](auto& a) {
         a.set_type("execPlugin");
         a.clear_token();
         a.mutable_exec_plugin();
       }),
       "spec.agentless.auth.exec_plugin.url: required"},
      {on_auth([](auto& a) {
         a.set_type("execPlugin");
         a.clear_token();
         a.mutable_exec_plugin()->set_url("http://creds.example");
       }),
       "spec.agentless.auth.exec_plugin.url:"},
      {on_auth([](auto& a) {
         a.set_type("execPlugin");
         a.clear_token();
         a.mutable_exec_plugin()->set_url("https://creds.example");
         a.mutable_exec_plugin()->mutable_ca_ref()->set_name("creds-ca");
       }),
       "spec.agentless.auth.exec_plugin.ca_ref.kind"},
      {on_auth([](auto& a) {
         a.set_type("execPlugin");
         a.clear_token();
         a.mutable_exec_plugin()->set_url("https://creds.example");
         a.mutable_exec_plugin()->mutable_token_ref()->set_name("bad_name");
       }),
       "spec.agentless.auth.exec_plugin.token_ref.name:"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    v1::RegisterClusterRequest request = Register("edge-1", TokenSpec(), "bad");
    cases[i].mutate(request);
    EXPECT_THAT(clusters_api_->RegisterCluster(request, cases[i].actor),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(cases[i].message)))
        << "case " << i;
  }
  EXPECT_EQ(store_->HeadSeq(), head);

  EXPECT_THAT(clusters_api_->DeregisterCluster(Deregister("Edge", "bad"), "alice"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name:")));
  EXPECT_THAT(Get(""), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name: required")));
  EXPECT_THAT(Probe("a.b", *clusters_api_), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Regression: a query (`?token=...`) in a URL was accepted, recorded in the log and shown by
// `cluster get`; a URL that was refused for its scheme was quoted whole, userinfo included.
TEST_F(ClusterApiTest, AQueryFragmentOrUserinfoInAUrlIsRefusedWithoutQuotingIt) {
  constexpr char kSecret[] = "SuperSecretQ";
  const int64_t head = store_->HeadSeq();
  auto exec_spec = [](const std::string& url) {
    v1::ClusterSpec spec = TokenSpec();
    v1::ClusterAuth& auth = *spec.mutable_agentless()->mutable_auth();
    auth.set_type("execPlugin");
    auth.clear_token();
    auth.mutable_exec_plugin()->set_url(url);
    return spec;
  };
  auto server_spec = [](const std::string& server) {
    v1::ClusterSpec spec = TokenSpec();
    spec.mutable_agentless()->set_server(server);
    return spec;
  };
  const std::string kWhy = ": it could carry a credential, and the spec is recorded in the log";
  const std::vector<std::pair<v1::ClusterSpec, std::string>> cases = {
      {server_spec("https://edge-1.example:6443/?token=SuperSecretQ"),
       "spec.agentless.server: must not contain a query (?...)" + kWhy},
      {server_spec("https://edge-1.example:6443?SuperSecretQ"),
       "spec.agentless.server: must not contain a query (?...)"},
      {server_spec("https://edge-1.example:6443/k8s#SuperSecretQ"),
       "spec.agentless.server: must not contain a fragment (#...)" + kWhy},
      {server_spec("http://edge-1.example/?token=SuperSecretQ"),
       "spec.agentless.server: must not contain a query"},
      {server_spec("http://admin:SuperSecretQ@edge-1.example"),
       "spec.agentless.server: must not contain userinfo"},
      {exec_spec("https://h/x?token=SuperSecretQ"),
       "spec.agentless.auth.exec_plugin.url: must not contain a query (?...)" + kWhy},
      {exec_spec("https://h/x#SuperSecretQ"),
       "spec.agentless.auth.exec_plugin.url: must not contain a fragment (#...)"},
      // Regression: a C1 control (the 8-bit CSI) and non-ASCII host names were recorded and
      // printed raw.
      {server_spec("https://h/\xc2\x9b" "2J"), "spec.agentless.server: must be ASCII"},
      {exec_spec("https://\xc3\xa9t\xc3\xa9.example/x"),
       "spec.agentless.auth.exec_plugin.url: must be ASCII: write an international host name "
       "in punycode"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_THAT(clusters_api_->RegisterCluster(Register("edge-1", cases[i].first, "bad"), "alice"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr(cases[i].second), Not(HasSubstr(kSecret)))))
        << "case " << i;
  }
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ClusterApiTest, AUserinfoInAServerUrlIsRefusedWithoutQuotingIt) {
  v1::ClusterSpec spec = TokenSpec();
  spec.mutable_agentless()->set_server("https://admin:s3cr3t@edge-1.example:6443");
  absl::StatusOr<v1::ClusterChangeResponse> refused =
      clusters_api_->RegisterCluster(Register("edge-1", spec, "r1"), "alice");
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument,
                                AllOf(HasSubstr("spec.agentless.server: must not contain userinfo"),
                                      Not(HasSubstr("s3cr3t")))));
  // An '@' after the host (in the path) is no userinfo.
  spec.mutable_agentless()->set_server("https://edge-1.example:6443/k8s/@edge");
  EXPECT_OK(clusters_api_->RegisterCluster(Register("edge-1", spec, "r2"), "alice"));
}

// Regression: every set auth block was checked for its shape whichever type was selected,
// and a missing block of the selected type was only found when connecting; a spec now says
// exactly what it uses.
TEST_F(ClusterApiTest, TheAuthBlocksMustFitTheAuthType) {
  const int64_t head = store_->HeadSeq();
  struct Case {
    std::string type;
    std::function<void(v1::ClusterAuth&)> blocks;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"token", [](v1::ClusterAuth& a) { a.mutable_client_cert()->set_secret_name("c"); },
       "spec.agentless.auth.client_cert: only for auth type clientCert (type is token)"},
      {"token", [](v1::ClusterAuth& a) { a.clear_token(); },
       "spec.agentless.auth.token: required for auth type token"},
      {"kubeconfig", [](v1::ClusterAuth& a) { a.clear_token(); },
       "spec.agentless.auth.kubeconfig: required for auth type kubeconfig"},
      {"clientCert", [](v1::ClusterAuth& a) { a.clear_token(); },
       "spec.agentless.auth.client_cert: required for auth type clientCert"},
      {"execPlugin", [](v1::ClusterAuth& a) { a.clear_token(); },
       "spec.agentless.auth.exec_plugin: required for auth type execPlugin"},
      // The selected block is there, another one too (even a malformed one is named as
      // extra, not checked for its shape).
      {"kubeconfig",
       [](v1::ClusterAuth& a) { a.mutable_kubeconfig()->mutable_secret_ref()->set_name("k"); },
       "spec.agentless.auth.token: only for auth type token (type is kubeconfig)"},
      {"token", [](v1::ClusterAuth& a) { a.mutable_exec_plugin(); },
       "spec.agentless.auth.exec_plugin: only for auth type execPlugin (type is token)"},
      // An unknown type uses none of the known blocks.
      {"oidc", [](v1::ClusterAuth&) {},
       "spec.agentless.auth.token: only for auth type token (type is oidc)"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    v1::ClusterSpec spec = TokenSpec();
    v1::ClusterAuth& auth = *spec.mutable_agentless()->mutable_auth();
    auth.set_type(cases[i].type);
    cases[i].blocks(auth);
    EXPECT_THAT(clusters_api_->RegisterCluster(Register("edge-1", spec, "bad"), "alice"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(cases[i].message)))
        << "case " << i;
  }
  EXPECT_EQ(store_->HeadSeq(), head);
}

// Regression: "Token" was accepted as an unknown auth type and probed as Unsupported.
TEST_F(ClusterApiTest, AKnownAuthTypeInAnotherCaseIsRefusedWithTheRightSpelling) {
  const int64_t head = store_->HeadSeq();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Token", "token"},
      {"KUBECONFIG", "kubeconfig"},
      {"clientcert", "clientCert"},
      {"ExecPlugin", "execPlugin"},
      {"OIDC", "oidc"}};
  for (const auto& [type, known] : cases) {
    v1::ClusterSpec spec = TokenSpec();
    spec.mutable_agentless()->mutable_auth()->set_type(type);
    spec.mutable_agentless()->mutable_auth()->clear_token();
    EXPECT_THAT(clusters_api_->RegisterCluster(Register("edge-1", spec, "bad"), "alice"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         absl::StrCat("spec.agentless.auth.type: \"", type,
                                      "\" is not an auth type; auth types are case-sensitive: "
                                      "did you mean ",
                                      known, "?")));
  }
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ClusterApiTest, UnknownAuthTypesAreAcceptedAndOnlySomeTypesNeedAServer) {
  v1::ClusterSpec oidc = TokenSpec();
  oidc.mutable_agentless()->clear_server();
  oidc.mutable_agentless()->mutable_auth()->set_type("oidc");
  oidc.mutable_agentless()->mutable_auth()->clear_token();
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-1", oidc, "r1"), "alice"));

  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-2", KubeconfigSpec(), "r2"), "alice"));

  v1::ClusterSpec home = InClusterSpec();
  home.set_namespace_("fleet");  // optional for inCluster
  ASSERT_OK(clusters_api_->RegisterCluster(Register("home", home, "r3"), "alice"));
  EXPECT_THAT(ListNames(false), ElementsAre("edge-1", "edge-2", "home"));
}

TEST_F(ClusterApiTest, RegisterGetListAndDeregister) {
  ASSERT_OK_AND_ASSIGN(
      v1::ClusterChangeResponse registered,
      clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"), "alice"));
  EXPECT_FALSE(registered.replayed());
  EXPECT_EQ(registered.seq(), store_->HeadSeq());
  EXPECT_EQ(registered.cluster().phase(), ClusterState::PHASE_ACTIVE);
  EXPECT_EQ(registered.cluster().reachable().reason(), "ProbePending");

  // The same spec again changes nothing; the same request id again is answered as before.
  ASSERT_OK_AND_ASSIGN(
      v1::ClusterChangeResponse same,
      clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r2"), "alice"));
  EXPECT_FALSE(same.replayed());
  EXPECT_EQ(same.seq(), 0);
  ASSERT_OK_AND_ASSIGN(
      v1::ClusterChangeResponse again,
      clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"), "alice"));
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.seq(), registered.seq());

  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse changed,
                       clusters_api_->RegisterCluster(
                           Register("edge-1", TokenSpec("edge-1-token-2"), "r3"), "alice"));
  EXPECT_EQ(changed.cluster().spec_version(), 1);
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-0", InClusterSpec(), "r4"), "alice"));

  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse got, Get("edge-1"));
  EXPECT_EQ(got.cluster().cluster().spec().agentless().auth().token().secret_ref().name(),
            "edge-1-token-2");
  EXPECT_THAT(ListNames(false), ElementsAre("edge-0", "edge-1"));

  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse gone,
                       clusters_api_->DeregisterCluster(Deregister("edge-1", "r5"), "alice"));
  EXPECT_EQ(gone.cluster().phase(), ClusterState::PHASE_DEREGISTERED);
  EXPECT_EQ(gone.seq(), store_->HeadSeq());
  // A deregistered cluster stays readable by name, with its last spec, for audits.
  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse deregistered, Get("edge-1"));
  EXPECT_EQ(deregistered.cluster().cluster().phase(), ClusterState::PHASE_DEREGISTERED);
  EXPECT_EQ(deregistered.cluster().cluster().spec().agentless().auth().token().secret_ref().name(),
            "edge-1-token-2");
  EXPECT_THAT(Get("edge-9"), StatusIs(absl::StatusCode::kNotFound,
                                      HasSubstr("cluster \"edge-9\": not registered")));
  EXPECT_THAT(clusters_api_->DeregisterCluster(Deregister("edge-1", "r6"), "alice"),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(ListNames(false), ElementsAre("edge-0"));
  EXPECT_THAT(ListNames(true), ElementsAre("edge-0", "edge-1"));
}

// Regression: a default key written out (`secretRef: {name: x, key: token}`) or left out
// (`{name: x}`) made two specs and two requests: registering one after the other appended a
// ClusterSpecChanged (and a probe), and a retry with the other form was refused.
TEST_F(ClusterApiTest, OneSpecWrittenTwoWaysIsOneSpecAndOneRequest) {
  // Every reference of an execPlugin spec, with the default keys left out ...
  v1::ClusterSpec bare = TokenSpec();
  v1::AgentlessConnection& agentless = *bare.mutable_agentless();
  agentless.mutable_ca_ref()->clear_key();
  agentless.mutable_auth()->set_type("execPlugin");
  agentless.mutable_auth()->clear_token();
  v1::ExecPluginAuth& exec = *agentless.mutable_auth()->mutable_exec_plugin();
  exec.set_url("https://creds.example/exec");
  exec.mutable_ca_ref()->set_kind("Secret");
  exec.mutable_ca_ref()->set_name("creds-ca");
  exec.mutable_token_ref()->set_name("creds-token");
  // ... and written out.
  v1::ClusterSpec full = bare;
  full.mutable_agentless()->mutable_ca_ref()->set_key("ca.crt");
  full.mutable_agentless()->mutable_auth()->mutable_exec_plugin()->mutable_ca_ref()->set_key(
      "ca.crt");
  full.mutable_agentless()->mutable_auth()->mutable_exec_plugin()->mutable_token_ref()->set_key(
      "token");

  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse registered,
                       clusters_api_->RegisterCluster(Register("edge-1", full, "r1"), "alice"));
  const int64_t head = store_->HeadSeq();
  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse same,
                       clusters_api_->RegisterCluster(Register("edge-1", bare, "r2"), "alice"));
  EXPECT_FALSE(same.replayed());
  EXPECT_EQ(same.seq(), 0);
  EXPECT_EQ(same.cluster().spec_version(), 0);
  // A retry of r1 written the other way is the same request.
  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse retried,
                       clusters_api_->RegisterCluster(Register("edge-1", bare, "r1"), "alice"));
  EXPECT_TRUE(retried.replayed());
  EXPECT_EQ(retried.seq(), registered.seq());
  EXPECT_EQ(store_->HeadSeq(), head);

  // Registered the bare way, the keys are recorded written out.
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-2", bare, "r3"), "alice"));
  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse got, Get("edge-2"));
  EXPECT_TRUE(MessageDifferencer::Equals(got.cluster().cluster().spec(), full))
      << got.cluster().cluster().spec().ShortDebugString();
  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse same_again,
                       clusters_api_->RegisterCluster(Register("edge-2", full, "r4"), "alice"));
  EXPECT_EQ(same_again.seq(), 0);

  // kubeconfig and token Secrets: key defaults "value" and "token".
  v1::ClusterSpec kubeconfig = KubeconfigSpec();
  v1::SecretKeyRef& kubeconfig_ref =
      *kubeconfig.mutable_agentless()->mutable_auth()->mutable_kubeconfig()->mutable_secret_ref();
  kubeconfig_ref.set_key("value");
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-3", KubeconfigSpec(), "r5"), "alice"));
  ASSERT_OK_AND_ASSIGN(same, clusters_api_->RegisterCluster(Register("edge-3", kubeconfig, "r6"),
                                                            "alice"));
  EXPECT_EQ(same.seq(), 0);
  v1::ClusterSpec token = TokenSpec();
  token.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->clear_key();
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-4", TokenSpec(), "r7"), "alice"));
  ASSERT_OK_AND_ASSIGN(same,
                       clusters_api_->RegisterCluster(Register("edge-4", token, "r8"), "alice"));
  EXPECT_EQ(same.seq(), 0);
}

// Regression: a kubeconfig cluster registered with a server and a CA stored both, and
// `cluster get` showed them although the kubeconfig's are used.
TEST_F(ClusterApiTest, AKubeconfigClusterStoresNoServerAndNoCa) {
  v1::ClusterSpec with_both = KubeconfigSpec();
  with_both.mutable_agentless()->set_server(kEdgeServer);
  with_both.mutable_agentless()->mutable_ca_ref()->set_kind("ConfigMap");
  with_both.mutable_agentless()->mutable_ca_ref()->set_name("edge-1-ca");
  ASSERT_OK_AND_ASSIGN(
      v1::ClusterChangeResponse registered,
      clusters_api_->RegisterCluster(Register("edge-1", with_both, "r1"), "alice"));
  const v1::AgentlessConnection& stored = registered.cluster().spec().agentless();
  EXPECT_EQ(stored.server(), "");
  EXPECT_FALSE(stored.has_ca_ref());
  EXPECT_EQ(stored.auth().kubeconfig().secret_ref().name(), "edge-1-kubeconfig");
  // Nor does the recorded event.
  ASSERT_OK_AND_ASSIGN(std::vector<store::RecordedEvent> events,
                       store_->ReadStream("cluster/edge-1", 0, 10));
  ASSERT_EQ(events.size(), 1u);
  ASSERT_OK_AND_ASSIGN(v1::Event event, store::EventCodec::Default().Decode(events[0]));
  EXPECT_EQ(event.cluster_registered().spec().agentless().server(), "");
  EXPECT_FALSE(event.cluster_registered().spec().agentless().has_ca_ref());
  // The same spec without them is the same spec.
  ASSERT_OK_AND_ASSIGN(
      v1::ClusterChangeResponse same,
      clusters_api_->RegisterCluster(Register("edge-1", KubeconfigSpec(), "r2"), "alice"));
  EXPECT_EQ(same.seq(), 0);
  // Ignored means unchecked too (regression: an http:// server or a bad CA kind got the
  // registration refused, though the CLI says they are ignored).
  v1::ClusterSpec with_bad = KubeconfigSpec();
  with_bad.mutable_agentless()->set_server("http://edge-1.example/x?token=q");
  with_bad.mutable_agentless()->mutable_ca_ref()->set_kind("Pod");
  ASSERT_OK_AND_ASSIGN(
      v1::ClusterChangeResponse unchecked,
      clusters_api_->RegisterCluster(Register("edge-1", with_bad, "r3"), "alice"));
  EXPECT_EQ(unchecked.seq(), 0);
}

TEST_F(ClusterApiTest, DeregistrationIsRefusedWhileAnIdentityMirrorsIntoTheCluster) {
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"), "alice"));
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-2", TokenSpec(), "r2"), "alice"));
  for (const auto& [name, cluster] : std::vector<std::pair<std::string, std::string>>{
           {"aws", "edge-1"}, {"gcp", "edge-1"}, {"azure", "edge-2"}, {"home", ""}}) {
    v1::IdentitySpec spec = Spec(name, {"team-a"});
    spec.set_cluster(cluster);
    ASSERT_OK(api_->CreateIdentity(Create(name, spec, "create-" + name), "alice"));
  }
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(clusters_api_->DeregisterCluster(Deregister("edge-1", "r3"), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("cluster \"edge-1\""), HasSubstr("identities aws, gcp "))));
  EXPECT_EQ(store_->HeadSeq(), head);

  v1::DeleteIdentityRequest del;
  del.set_name("aws");
  del.set_request_id("delete-aws");
  ASSERT_OK(api_->DeleteIdentity(del, "alice"));
  v1::UpdateIdentityRequest move;
  move.set_name("gcp");
  move.set_request_id("move-gcp");
  *move.mutable_spec() = Spec("gcp", {"team-a"});
  move.mutable_spec()->set_cluster("edge-2");
  ASSERT_OK(api_->UpdateIdentity(move, "alice"));
  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse gone,
                       clusters_api_->DeregisterCluster(Deregister("edge-1", "r3"), "alice"));
  EXPECT_EQ(gone.cluster().phase(), ClusterState::PHASE_DEREGISTERED);
  EXPECT_THAT(clusters_api_->DeregisterCluster(Deregister("edge-2", "r4"), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("identities azure, gcp ")));
}

TEST_F(ClusterApiTest, AProbeRecordsItsOutcomeAndAnswersWithTheCluster) {
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"), "alice"));
  clock_.Advance(absl::Minutes(1));
  outcome_ = Succeeded(0, "v1.30.2", {"apps", "batch", "networking.k8s.io"});
  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse probed, Probe("edge-1", *clusters_api_));
  EXPECT_THAT(probed_, ElementsAre("edge-1"));
  const ClusterState& cluster = probed.cluster().cluster();
  EXPECT_EQ(cluster.reachable().status(), "True");
  EXPECT_EQ(cluster.server_version(), "v1.30.2");
  EXPECT_EQ(cluster.api_groups_size(), 3);
  EXPECT_EQ(probed.cluster().last_probe_time().seconds(), absl::ToUnixSeconds(clock_.Now()));

  // Recorded: a read sees it too.
  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse got, Get("edge-1"));
  EXPECT_EQ(got.cluster().cluster().reachable().reason(), "ProbeSucceeded");

  // A failed probe is an answer, not an error.
  outcome_ = Failed(0, "Unsupported", "auth type \"token\": Secret fleet/edge-1-token has no key");
  ASSERT_OK_AND_ASSIGN(probed, Probe("edge-1", *clusters_api_));
  EXPECT_EQ(probed.cluster().cluster().reachable().status(), "False");
  EXPECT_EQ(probed.cluster().cluster().reachable().reason(), "Unsupported");
}

TEST_F(ClusterApiTest, AProbeNeedsAProbeFunctionAndAnActiveCluster) {
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"), "alice"));
  std::unique_ptr<ClusterApi> offline = MakeClusterApi(/*with_probe=*/false);
  EXPECT_THAT(Probe("edge-1", *offline), StatusIs(absl::StatusCode::kFailedPrecondition,
                                                  HasSubstr("requires a home cluster connection")));
  EXPECT_THAT(Probe("edge-9", *clusters_api_),
              StatusIs(absl::StatusCode::kNotFound, "cluster \"edge-9\": not registered"));
  // Regression: a deregistered cluster, which GetCluster answers, was "not registered".
  ASSERT_OK(clusters_api_->DeregisterCluster(Deregister("edge-1", "r2"), "alice"));
  EXPECT_THAT(Probe("edge-1", *clusters_api_),
              StatusIs(absl::StatusCode::kNotFound,
                       "cluster \"edge-1\": deregistered; register it again to use it"));
  EXPECT_THAT(clusters_api_->DeregisterCluster(Deregister("edge-1", "r3"), "alice"),
              StatusIs(absl::StatusCode::kNotFound,
                       "cluster \"edge-1\": deregistered; register it again to use it"));
  EXPECT_THAT(probed_, IsEmpty());
}

TEST_F(ClusterApiTest, ViewsShowTheLaterOfTheRecordedAndTheLiveProbeTime) {
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"), "alice"));
  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse unprobed, Get("edge-1"));
  EXPECT_FALSE(unprobed.cluster().has_last_probe_time());

  ASSERT_OK(Probe("edge-1", *clusters_api_));
  const absl::Time recorded = clock_.Now();
  live_probe_ = recorded + absl::Minutes(10);  // an unchanged probe, not recorded
  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse later, Get("edge-1"));
  EXPECT_EQ(later.cluster().last_probe_time().seconds(), absl::ToUnixSeconds(*live_probe_));
  EXPECT_EQ(later.cluster().cluster().last_probe_time().seconds(), absl::ToUnixSeconds(recorded));

  live_probe_ = recorded - absl::Minutes(10);
  v1::ListClustersRequest list;
  ASSERT_OK_AND_ASSIGN(v1::ListClustersResponse listed, clusters_api_->ListClusters(list));
  ASSERT_EQ(listed.clusters_size(), 1);
  EXPECT_EQ(listed.clusters(0).last_probe_time().seconds(), absl::ToUnixSeconds(recorded));

  // Without any recorded probe, the live time alone.
  const v1::ClusterView view = ToClusterView(ClusterState(), recorded);
  EXPECT_EQ(view.last_probe_time().seconds(), absl::ToUnixSeconds(recorded));
  EXPECT_FALSE(ToClusterView(ClusterState(), std::nullopt).has_last_probe_time());
}

// A request id retried with another spec is refused instead of answered as a replay of the
// first registration (docs/api.md, "Request ids and idempotency").
TEST_F(ClusterApiTest, ARequestIdReusedWithAnotherSpecIsFailedPrecondition) {
  ASSERT_OK(clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"), "alice"));
  const int64_t head = store_->HeadSeq();
  ASSERT_OK_AND_ASSIGN(v1::ClusterChangeResponse again,
                       clusters_api_->RegisterCluster(Register("edge-1", TokenSpec(), "r1"),
                                                      "alice"));
  EXPECT_TRUE(again.replayed());
  EXPECT_THAT(clusters_api_->RegisterCluster(
                  Register("edge-1", TokenSpec("edge-1-token-2"), "r1"), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("request_id \"r1\" was already used for a RegisterCluster")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

}  // namespace cluster_api_test
}  // namespace credledger::service
