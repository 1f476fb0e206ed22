// ApiServerFixture: starts the test Kubernetes API server (test/kubeapi) in a temp folder
// and builds KubeClients from the kubeconfig it writes, for kube bridge integration tests.
#pragma once

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "test/kubeapi/api_server.h"
#include "test/kubebridge/test_files.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::kubebridge {

class ApiServerFixture : public ::testing::Test {
 protected:
  // Options for the server; tests override before StartServer().
  kubeapi::ApiServerOptions ServerOptions() {
    kubeapi::ApiServerOptions options;
    options.state_dir = dir_.path() / "apiserver";
    options.worker_threads = 16;
    options.bookmark_interval = absl::Hours(1);  // bookmarks only when a test forces them
    return options;
  }

  // Client options: no client-side throttling in tests unless a test wants it, fast retries.
  static KubeClientOptions ClientOptions() {
    KubeClientOptions options;
    options.rate_limit = {.qps = 0, .burst = 1};
    options.retry.initial_delay = absl::Milliseconds(10);
    options.retry.max_delay = absl::Milliseconds(100);
    options.request_timeout = absl::Seconds(20);
    return options;
  }

  void StartServer(kubeapi::ApiServerOptions options) {
    absl::StatusOr<std::unique_ptr<kubeapi::ApiServer>> server =
        kubeapi::ApiServer::Start(std::move(options));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    absl::StatusOr<ConnectionConfig> config = LoadKubeconfig(server_->kubeconfig_path());
    ASSERT_TRUE(config.ok()) << config.status();
    config_ = *std::move(config);
    client_ = NewClient(config_, ClientOptions());
  }

  void SetUp() override { StartServer(ServerOptions()); }

  void TearDown() override {
    if (client_ != nullptr) client_->Stop();
    if (server_ != nullptr) server_->Stop();
  }

  std::unique_ptr<KubeClient> NewClient(const ConnectionConfig& config,
                                        const KubeClientOptions& options) {
    absl::StatusOr<std::unique_ptr<KubeClient>> client = KubeClient::New(config, options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  // A client acting as ServiceAccount `name` in `ns`, which is created here, with a token from
  // a TokenRequest: it may do what the RBAC objects of the test grant the account. Null (and
  // a test failure) when that fails.
  std::unique_ptr<KubeClient> ServiceAccountClient(const std::string& ns, const std::string& name) {
    const ResourceRef account = Core("serviceaccounts", name, ns);
    EXPECT_OK(client_->Create(
        account.WithName(""),
        {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}}));
    absl::StatusOr<nlohmann::json> issued =
        client_->CreateSubresource(account, "token",
                                   {{"apiVersion", "authentication.k8s.io/v1"},
                                    {"kind", "TokenRequest"},
                                    {"spec", {{"expirationSeconds", 3600}}}});
    EXPECT_OK(issued.status());
    if (!issued.ok()) return nullptr;
    ConnectionConfig config = config_;
    config.token = StringAt(*issued, {"status", "token"});
    config.token_file.clear();
    return NewClient(config, ClientOptions());
  }

  static ResourceRef Core(const std::string& resource, const std::string& name = "",
                          const std::string& ns = "default") {
    ResourceRef ref;
    ref.version = "v1";
    ref.resource = resource;
    ref.namespace_name = ns;
    ref.name = name;
    return ref;
  }

  static nlohmann::json ConfigMap(const std::string& name, const std::string& app,
                                  const std::string& value = "v") {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
            {"data", {{"key", value}}}};
  }

  ::credledger::testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> server_;
  ConnectionConfig config_;
  std::unique_ptr<KubeClient> client_;
};

}  // namespace credledger::kubebridge
