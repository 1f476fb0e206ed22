// ClusterAuthFixture: the test API server (ApiServerFixture) as the home cluster with a
// namespace "fleet" that holds a cluster's Secrets and ConfigMaps, builders for agentless
// cluster specs that point back at the same server, and a connector over the default
// registry, for the tests of the SecretResolver, the authenticators, the connector and the
// prober.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/clusters/cluster_connector.h"
#include "kubebridge/clusters/secret_resolver.h"
#include "kubebridge/clusters/static_authenticators.h"
#include "test/kubebridge/api_server_fixture.h"

namespace credledger::kubebridge {

class ClusterAuthFixture : public ApiServerFixture {
 protected:
  static constexpr char kNamespace[] = "fleet";

  void SetUp() override {
    ApiServerFixture::SetUp();
    ASSERT_NE(client_, nullptr);
    ASSERT_OK(client_->Create(
        Core("namespaces", "", ""),
        {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNamespace}}}}));
    resolver_ = std::make_unique<SecretResolver>(*client_);
  }

  // Creates (or replaces) Secret fleet/`name` with `data` (values base64-encoded here).
  void PutSecret(const std::string& name, const std::map<std::string, std::string>& data) {
    nlohmann::json encoded = nlohmann::json::object();
    for (const auto& [key, value] : data) encoded[key] = absl::Base64Escape(value);
    nlohmann::json secret = {{"apiVersion", "v1"},
                             {"kind", "Secret"},
                             {"metadata", {{"name", name}}},
                             {"data", encoded}};
    absl::StatusOr<nlohmann::json> live = client_->Get(Core("secrets", name, kNamespace));
    if (live.ok()) {
      secret["metadata"]["resourceVersion"] = (*live)["metadata"]["resourceVersion"];
      ASSERT_OK(client_->Update(Core("secrets", name, kNamespace), secret));
    } else {
      ASSERT_OK(client_->Create(Core("secrets", "", kNamespace), secret));
    }
  }

  // Creates ConfigMap fleet/`name` with `data` and `binary_data` (base64-encoded here).
  void CreateConfigMap(const std::string& name, const std::map<std::string, std::string>& data,
                       const std::map<std::string, std::string>& binary_data = {}) {
    nlohmann::json binary = nlohmann::json::object();
    for (const auto& [key, value] : binary_data) binary[key] = absl::Base64Escape(value);
    ASSERT_OK(client_->Create(Core("configmaps", "", kNamespace), {{"apiVersion", "v1"},
                                                                   {"kind", "ConfigMap"},
                                                                   {"metadata", {{"name", name}}},
                                                                   {"data", data},
                                                                   {"binaryData", binary}}));
  }

  // Creates ServiceAccount fleet/`name` and returns a one-hour token for it.
  std::string ServiceAccountToken(const std::string& name) {
    EXPECT_OK(client_->Create(
        Core("serviceaccounts", "", kNamespace),
        {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}}));
    absl::StatusOr<nlohmann::json> request =
        client_->CreateSubresource(Core("serviceaccounts", name, kNamespace), "token",
                                   {{"apiVersion", "authentication.k8s.io/v1"},
                                    {"kind", "TokenRequest"},
                                    {"spec", {{"expirationSeconds", 3600}}}});
    EXPECT_OK(request.status());
    return request.ok() ? (*request)["status"]["token"].get<std::string>() : "";
  }

  // An active agentless cluster `name` of auth type `type` whose server is the test API
  // server and whose CA is ConfigMap fleet/cluster-ca (created by CreateClusterCa()).
  v1::ClusterState AgentlessCluster(const std::string& name, const std::string& type) {
    v1::ClusterState cluster;
    cluster.set_name(name);
    cluster.set_phase(v1::ClusterState::PHASE_ACTIVE);
    cluster.set_spec_version(3);
    v1::ClusterSpec& spec = *cluster.mutable_spec();
    spec.set_namespace_(kNamespace);
    spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
    spec.mutable_agentless()->set_server(server_->url());
    v1::ObjectKeyRef& ca = *spec.mutable_agentless()->mutable_ca_ref();
    ca.set_kind("ConfigMap");
    ca.set_name("cluster-ca");
    spec.mutable_agentless()->mutable_auth()->set_type(type);
    return cluster;
  }

  void CreateClusterCa() { CreateConfigMap("cluster-ca", {{"ca.crt", server_->ca_pem()}}); }

  // AgentlessCluster "edge-1" of auth type "token" reading Secret fleet/`secret`.
  v1::ClusterState TokenCluster(const std::string& secret) {
    v1::ClusterState cluster = AgentlessCluster("edge-1", kAuthToken);
    cluster.mutable_spec()
        ->mutable_agentless()
        ->mutable_auth()
        ->mutable_token()
        ->mutable_secret_ref()
        ->set_name(secret);
    return cluster;
  }

  // Creates the cluster CA ConfigMap, the default registry and a connector whose home
  // connection is the admin's.
  void StartConnector() {
    CreateClusterCa();
    registry_ = DefaultClusterAuthRegistry();
    connector_ = std::make_unique<ClusterConnector>(config_, resolver_.get(), registry_.get());
  }

  // The 403 message of a GET of Secret fleet/forbidden-probe through `config`: it names the
  // user the server authenticated (no RBAC grants that get).
  std::string ForbiddenMessageAs(const ConnectionConfig& config) {
    std::unique_ptr<KubeClient> client = NewClient(config, ClientOptions());
    if (client == nullptr) return "";
    absl::StatusOr<nlohmann::json> got =
        client->Get(Core("secrets", "forbidden-probe", kNamespace));
    EXPECT_EQ(got.status().code(), absl::StatusCode::kPermissionDenied) << got.status();
    return std::string(got.status().message());
  }

  std::unique_ptr<SecretResolver> resolver_;
  std::unique_ptr<ClusterAuthRegistry> registry_;  // set by StartConnector()
  std::unique_ptr<ClusterConnector> connector_;    // set by StartConnector()
};

}  // namespace credledger::kubebridge
