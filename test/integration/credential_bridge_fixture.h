// CredentialBridgeFixture: the credential lifecycle inside one process, for the tests of the
// credential bridge (credential_bridge_test.cc, and credential_bridge_faults_test.cc under
// injected API server faults): a real SQLite log, the command bus, the projector and the
// kube bridge against the test Kubernetes API server over HTTPS. Time is a FakeClock shared
// by the log, the bridge and the API server, so rotation, expiry, the mint retry delay and
// the work queue's backoff are driven without waiting; the KubeClient's own timeouts and
// retries run on real time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "projections/target_state.h"
#include "service/bridge/bridge_outcome_sink.h"
#include "service/bus/target_command_bus.h"
#include "service/server/service_configuration.h"
#include "store/sqlite_event_store.h"
#include "test/kubeapi/api_server.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::credential_bridge_fixture {

// The namespace (created at set-up) and name of the Target most tests use.
inline constexpr char kNs[] = "demo";
inline constexpr char kTarget[] = "edge-1";

class CredentialBridgeFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    api.clock = &clock_;
    api.max_token_expiration = absl::Hours(48);
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));

    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig connection,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    ASSERT_OK_AND_ASSIGN(client_, kubebridge::KubeClient::New(connection, ClientOptions()));
    CreateNamespace(kNs);

    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(store_, store::SqliteEventStore::Open(options));
    service_.set_agent_apiserver_url(api_->url());
    service_.set_agent_ca_sha256(common::HexEncode(common::Sha256Of(api_->ca_pem())));
    service_.set_agent_token_ttl_seconds(24 * 3600);
    service_.set_credentials_enabled(true);
    service_.set_connection_hash(projections::ConnectionHash(api_->url(), api_->ca_pem()));
    ASSERT_OK(service::RecordServiceConfiguration(*store_, service_, "credledger"));

    bus_ = std::make_unique<service::TargetCommandBus>(store_.get());
    ASSERT_OK_AND_ASSIGN(projector_, projections::CredentialProjector::Start(store_.get(), {}));
    sink_ = std::make_unique<service::BridgeOutcomeSink>(bus_.get(), &clock_, service_);
    kubebridge::CredentialBridgeOptions bridge;
    bridge.token_ttl = absl::Hours(24);
    bridge_ = kubebridge::CredentialBridge::Start(client_.get(), sink_.get(), projector_.get(),
                                                  &clock_, bridge);
  }

  void TearDown() override {
    if (bridge_ != nullptr) bridge_->Stop();
    if (client_ != nullptr) client_->Stop();
  }

  // The options of the bridge's client: no client-side throttling in effect.
  virtual kubebridge::KubeClientOptions ClientOptions() {
    kubebridge::KubeClientOptions options;
    options.rate_limit.qps = 1000;
    options.rate_limit.burst = 1000;
    return options;
  }

  void CreateNamespace(const std::string& name) {
    ASSERT_OK(client_->Create(kubebridge::ResourceRef{"", "v1", "namespaces", "", ""},
                              {{"apiVersion", "v1"},
                               {"kind", "Namespace"},
                               {"metadata", {{"name", name}}}}));
  }

  // Executes `command` on Target `ns`/`name` as the operator at the fake clock's time.
  absl::StatusOr<service::CommandResult> Run(const service::TargetCommand& command,
                                             const std::string& request_id,
                                             const std::string& ns = kNs,
                                             const std::string& name = kTarget) {
    return bus_->Execute(command, {ns, name, clock_.Now(), "operator", request_id, service_});
  }

  // Waits (bounded) until the projected state of Target `ns`/`name` satisfies `done`.
  v1::TargetState WaitFor(const std::function<bool(const v1::TargetState&)>& done,
                          const std::string& what, const std::string& ns = kNs,
                          const std::string& name = kTarget) {
    absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (absl::Now() < give_up) {
      int64_t seq = projector_->seq();
      std::optional<v1::TargetState> state = projector_->Get(ns, name);
      if (state.has_value() && done(*state)) return *state;
      projector_->WaitForSeq(seq + 1, absl::Milliseconds(200));
    }
    ADD_FAILURE() << "timed out waiting for: " << what;
    return projector_->Get(ns, name).value_or(v1::TargetState());
  }

  static std::string CurrentName(const v1::TargetState& s) {
    const v1::CredentialRecord* c = projections::CurrentCredential(s);
    return c == nullptr ? "" : c->secret().name();
  }

  // Names of the credential Secrets in `ns`.
  std::vector<std::string> SecretNames(const std::string& ns = kNs) {
    kubebridge::ListOptions options;
    options.label_selector = kubebridge::kCredentialLabel;
    auto list = client_->List(kubebridge::SecretResource(ns), options);
    EXPECT_OK(list);
    std::vector<std::string> names;
    if (list.ok()) {
      for (const auto& s : list->items) {
        names.push_back(kubebridge::StringAt(s, {"metadata", "name"}));
      }
    }
    return names;
  }

  // Event type names of the stream of Target `ns`/`name`, in order.
  std::vector<std::string> StreamTypes(const std::string& ns = kNs,
                                       const std::string& name = kTarget) {
    std::vector<std::string> types;
    auto events = store_->ReadStream(projections::TargetStream(ns, name), 0, 1000);
    EXPECT_OK(events);
    if (!events.ok()) return types;
    for (const auto& e : *events) {
      types.push_back(e.type.substr(std::string("credledger.v1.").size()));
    }
    return types;
  }

  credledger::testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> client_;
  std::unique_ptr<store::SqliteEventStore> store_;
  v1::ServiceConfigured service_;
  std::unique_ptr<service::TargetCommandBus> bus_;
  std::unique_ptr<projections::CredentialProjector> projector_;
  std::unique_ptr<service::BridgeOutcomeSink> sink_;
  std::unique_ptr<kubebridge::CredentialBridge> bridge_;
};

}  // namespace credledger::credential_bridge_fixture
