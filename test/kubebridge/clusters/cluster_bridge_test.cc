// ClusterBridge against the test API server (docs/connections.md, "Clusters",
// "Error classes" and "Probes and the Reachable condition"). Clusters are
// registered in a real SQLite log that a ClusterProjector follows; a fake sink appends the
// probes' ClusterProbed events to the same log (as service/bridge/bridge_cluster_sink.h does
// through the command bus, which this binary does not link). The work queue and the period
// run on a FakeClock; the probes themselves are real HTTPS calls.
#include "kubebridge/clusters/cluster_bridge.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "kubebridge/clusters/cluster_auth.h"
#include "kubebridge/clusters/cluster_connector.h"
#include "kubebridge/clusters/secret_resolver.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/model/connection_errors.h"
#include "projections/cluster_projector.h"
#include "projections/cluster_state.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/await_sleepers.h"

namespace credledger::kubebridge {
namespace cluster_bridge_test {

using ::credledger::testing::StatusIs;

constexpr char kNamespace[] = "ops";
constexpr char kCluster[] = "edge-1";
constexpr absl::Duration kPeriod = absl::Hours(1);
constexpr absl::Duration kWait = absl::Seconds(30);

// Returns true once `done` holds; false after `limit` of real time. Yields between checks.
bool Eventually(const std::function<bool()>& done, absl::Duration limit = kWait) {
  const absl::Time give_up = absl::Now() + limit;
  while (!done()) {
    if (absl::Now() >= give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

// Appends events to cluster streams of a real log.
class ClusterLog {
 public:
  explicit ClusterLog(store::EventStore* store) : store_(store) {}

  absl::Status Append(const std::string& name, const v1::Event& event) {
    v1::EventMetadata metadata;
    metadata.set_actor("test");
    absl::StatusOr<store::NewEvent> encoded = store::EventCodec::Default().Encode(event, metadata);
    if (!encoded.ok()) return encoded.status();
    store::AppendRequest request;
    {
      absl::MutexLock lock(&mu_);
      request.request_id = absl::StrCat("r", ++requests_);
    }
    request.streams.push_back(
        {projections::ClusterStream(name), store::ExpectedVersion::Any(), {*std::move(encoded)}});
    return store_->Append(std::move(request)).status();
  }

 private:
  store::EventStore* store_;
  absl::Mutex mu_;
  int requests_ ABSL_GUARDED_BY(mu_) = 0;
};

// Records every probe it is handed and appends a ClusterProbed when the outcome differs
// from the cluster's Reachable condition (the record interval plays no part here).
class FakeProbeSink final : public ClusterProbeSink {
 public:
  FakeProbeSink(ClusterLog* log, store::EventStore* store) : log_(log), store_(store) {}
  void set_projector(projections::ClusterProjector* projector) { projector_ = projector; }

  absl::StatusOr<v1::ClusterState> RecordProbe(const std::string& name,
                                               const v1::ClusterProbed& probe) override {
    {
      absl::MutexLock lock(&mu_);
      probes_.emplace_back(name, probe);
    }
    std::optional<v1::ClusterState> state = projector_->GetCluster(name);
    if (!state.has_value() || state->phase() != v1::ClusterState::PHASE_ACTIVE) {
      return absl::NotFoundError(absl::StrCat("cluster \"", name, "\" is not registered"));
    }
    if (state->reachable().reason() != probe.reason() ||
        state->reachable().message() != probe.message()) {
      v1::Event event;
      *event.mutable_cluster_probed() = probe;
      if (absl::Status appended = log_->Append(name, event); !appended.ok()) {
        return absl::UnavailableError(appended.message());
      }
      if (!projector_->WaitForSeq(store_->HeadSeq(), kWait)) {
        return absl::UnavailableError("the projector did not catch up");
      }
    }
    return *projector_->GetCluster(name);
  }

  // Probes of `name` handed to the sink so far.
  std::vector<v1::ClusterProbed> ProbesOf(const std::string& name) const {
    absl::MutexLock lock(&mu_);
    std::vector<v1::ClusterProbed> out;
    for (const auto& [n, probe] : probes_) {
      if (n == name) out.push_back(probe);
    }
    return out;
  }
  size_t Count(const std::string& name) const { return ProbesOf(name).size(); }

 private:
  ClusterLog* log_;
  store::EventStore* store_;
  projections::ClusterProjector* projector_ = nullptr;
  mutable absl::Mutex mu_;
  std::vector<std::pair<std::string, v1::ClusterProbed>> probes_ ABSL_GUARDED_BY(mu_);
};

// A TCP listener on 127.0.0.1 that never accepts: a client's TLS handshake hangs.
class SilentServer {
 public:
  SilentServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(fd_, 16);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentServer() { ::close(fd_); }
  std::string url() const { return absl::StrCat("https://127.0.0.1:", port_); }
  // True once a connection waits to be accepted (within `limit`).
  bool WaitForConnection(absl::Duration limit) const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(limit))) == 1;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

class ClusterBridgeTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.namespaces = {kNamespace};
    StartServer(std::move(options));
    ASSERT_OK(client_->Create(Core("configmaps", "", kNamespace),
                              {{"apiVersion", "v1"},
                               {"kind", "ConfigMap"},
                               {"metadata", {{"name", "cluster-ca"}}},
                               {"data", {{"ca.crt", server_->ca_pem()}}}}));
    CreateTokenSecret("good-token", server_->admin_token());
    CreateTokenSecret("bad-token", "not-a-token-the-server-knows");

    ASSERT_OK_AND_ASSIGN(store_, store::SqliteEventStore::Open({.path = dir_.path() / "log.db"}));
    log_ = std::make_unique<ClusterLog>(store_.get());
    sink_ = std::make_unique<FakeProbeSink>(log_.get(), store_.get());
    resolver_ = std::make_unique<SecretResolver>(*client_);
    registry_ = DefaultClusterAuthRegistry();
    connector_ = std::make_unique<ClusterConnector>(config_, resolver_.get(), registry_.get());

    options_.probe_period = kPeriod;
    options_.workers = 1;
    options_.retry = {absl::Seconds(1), 2.0, absl::Seconds(8), 0.0, 1, absl::Minutes(5)};
    options_.client = ClientOptions();
    options_.probe_timeout = absl::Seconds(20);
  }

  void TearDown() override {
    if (bridge_ != nullptr) bridge_->Stop();
    bridge_.reset();
    projector_.reset();
    ApiServerFixture::TearDown();
  }

  void CreateTokenSecret(const std::string& name, const std::string& token) {
    ASSERT_OK(client_->Create(SecretResource(kNamespace),
                              {{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", {{"name", name}}},
                               {"data", {{"token", absl::Base64Escape(token)}}}}));
  }

  // An agentless spec for the test API server with auth `type`; a "token" spec reads its
  // token from Secret `token_secret`.
  v1::ClusterSpec Spec(const std::string& type, const std::string& token_secret = "") {
    v1::ClusterSpec spec;
    spec.set_namespace_(kNamespace);
    spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
    spec.mutable_agentless()->set_server(server_->url());
    spec.mutable_agentless()->mutable_ca_ref()->set_kind("ConfigMap");
    spec.mutable_agentless()->mutable_ca_ref()->set_name("cluster-ca");
    spec.mutable_agentless()->mutable_auth()->set_type(type);
    if (!token_secret.empty()) {
      spec.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
          token_secret);
    }
    return spec;
  }

  void Register(const std::string& name, const v1::ClusterSpec& spec) {
    v1::Event event;
    event.mutable_cluster_registered()->set_name(name);
    *event.mutable_cluster_registered()->mutable_spec() = spec;
    ASSERT_OK(log_->Append(name, event));
  }
  void ChangeSpec(const std::string& name, const v1::ClusterSpec& spec) {
    v1::Event event;
    *event.mutable_cluster_spec_changed()->mutable_spec() = spec;
    ASSERT_OK(log_->Append(name, event));
  }
  void Deregister(const std::string& name) {
    v1::Event event;
    event.mutable_cluster_deregistered();
    ASSERT_OK(log_->Append(name, event));
  }

  void StartBridge() {
    ASSERT_OK_AND_ASSIGN(projector_,
                         projections::ClusterProjector::Start(store_.get(), {.snapshot_every = 0}));
    sink_->set_projector(projector_.get());
    bridge_ =
        ClusterBridge::Start(connector_.get(), sink_.get(), projector_.get(), &clock_, options_);
    ASSERT_TRUE(bridge_->WaitIdle(kWait));
  }

  // The cluster as the log says after every append so far.
  v1::ClusterState State(const std::string& name) {
    EXPECT_TRUE(projector_->WaitForSeq(store_->HeadSeq(), kWait));
    return projector_->GetCluster(name).value_or(v1::ClusterState());
  }

  common::FakeClock clock_;
  ClusterBridgeOptions options_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<ClusterLog> log_;
  std::unique_ptr<FakeProbeSink> sink_;
  std::unique_ptr<SecretResolver> resolver_;
  std::unique_ptr<ClusterAuthRegistry> registry_;
  std::unique_ptr<ClusterConnector> connector_;
  std::unique_ptr<projections::ClusterProjector> projector_;
  std::unique_ptr<ClusterBridge> bridge_;
};

TEST_F(ClusterBridgeTest, ARegisteredClusterIsProbedAtStartAndBecomesReachable) {
  Register(kCluster, Spec(kAuthToken, "good-token"));
  StartBridge();

  ASSERT_EQ(sink_->Count(kCluster), 1u);
  const v1::ClusterState state = State(kCluster);
  EXPECT_EQ(state.reachable().status(), "True");
  EXPECT_EQ(state.reachable().reason(), kReasonProbeSucceeded);
  EXPECT_EQ(state.auth_type(), kAuthToken);
  ASSERT_OK_AND_ASSIGN(std::string version, client_->RawGet("/version"));
  EXPECT_EQ(state.server_version(),
            nlohmann::json::parse(version)["gitVersion"].get<std::string>());
  EXPECT_FALSE(state.api_groups().empty());
  EXPECT_EQ(bridge_->Retries(kCluster), 0);
  EXPECT_EQ(bridge_->LastProbe(kCluster), clock_.Now());
  EXPECT_EQ(bridge_->LastProbe("absent"), std::nullopt);
}

TEST_F(ClusterBridgeTest, AFailingClusterIsRetriedWithBackoff) {
  Register(kCluster, Spec(kAuthToken, "bad-token"));
  StartBridge();
  ASSERT_EQ(sink_->Count(kCluster), 1u);
  EXPECT_EQ(State(kCluster).reachable().reason(), kReasonProbeFailed);
  EXPECT_EQ(bridge_->Retries(kCluster), 1);

  // Delays 1 s, then 2 s (initial 1 s, doubling): nothing before each is due.
  for (const absl::Duration delay : {absl::Seconds(1), absl::Seconds(2)}) {
    // The period loop and the worker (waiting for the retry) sleep on the clock.
    ASSERT_TRUE(AwaitSleepers(clock_, 2));
    const size_t probes = sink_->Count(kCluster);
    clock_.Advance(delay - absl::Milliseconds(1));
    ASSERT_TRUE(bridge_->WaitIdle(kWait));
    EXPECT_EQ(sink_->Count(kCluster), probes);
    clock_.Advance(absl::Milliseconds(1));
    ASSERT_TRUE(Eventually([&] { return sink_->Count(kCluster) == probes + 1; }));
    ASSERT_TRUE(bridge_->WaitIdle(kWait));
  }
  EXPECT_EQ(bridge_->Retries(kCluster), 3);
  // Each failed probe is one reconcile error (metrics).
  EXPECT_EQ(bridge_->reconcile_errors(), 3);
  const std::vector<v1::ClusterProbed> probes = sink_->ProbesOf(kCluster);
  for (const v1::ClusterProbed& probe : probes) EXPECT_EQ(probe.reason(), kReasonProbeFailed);
}

TEST_F(ClusterBridgeTest, AnUnsupportedClusterIsNotRetriedUntilItsSpecChanges) {
  Register(kCluster, Spec(kAuthOidc));
  StartBridge();
  ASSERT_EQ(sink_->Count(kCluster), 1u);
  EXPECT_EQ(State(kCluster).reachable().reason(), kReasonUnsupported);
  EXPECT_EQ(bridge_->Retries(kCluster), 0);
  EXPECT_EQ(bridge_->reconcile_errors(), 0);

  // Far past every retry delay, still before the period.
  ASSERT_TRUE(AwaitSleepers(clock_, 1));
  clock_.Advance(options_.retry.max_delay * 4);
  ASSERT_TRUE(bridge_->WaitIdle(kWait));
  EXPECT_EQ(sink_->Count(kCluster), 1u);

  ChangeSpec(kCluster, Spec(kAuthToken, "good-token"));
  ASSERT_TRUE(Eventually([&] { return sink_->Count(kCluster) == 2; }));
  ASSERT_TRUE(bridge_->WaitIdle(kWait));
  EXPECT_EQ(State(kCluster).reachable().reason(), kReasonProbeSucceeded);
}

TEST_F(ClusterBridgeTest, ASpecChangeIsProbedAtOnceEvenDuringABackoff) {
  Register(kCluster, Spec(kAuthToken, "bad-token"));
  StartBridge();
  ASSERT_EQ(bridge_->Retries(kCluster), 1);

  // No clock movement: the retry 1 s away is not what probes it.
  ChangeSpec(kCluster, Spec(kAuthToken, "good-token"));
  ASSERT_TRUE(Eventually([&] { return sink_->Count(kCluster) == 2; }));
  ASSERT_TRUE(bridge_->WaitIdle(kWait));
  EXPECT_EQ(State(kCluster).reachable().reason(), kReasonProbeSucceeded);
  EXPECT_EQ(bridge_->Retries(kCluster), 0);
  // Its own ClusterProbed records queue no further probe.
  ASSERT_TRUE(bridge_->WaitIdle(kWait));
  EXPECT_EQ(sink_->Count(kCluster), 2u);
}

TEST_F(ClusterBridgeTest, ThePeriodReprobesEveryActiveCluster) {
  Register(kCluster, Spec(kAuthToken, "good-token"));
  Register("gone", Spec(kAuthToken, "good-token"));
  Deregister("gone");
  StartBridge();
  ASSERT_EQ(sink_->Count(kCluster), 1u);
  const absl::Time first = clock_.Now();
  EXPECT_EQ(bridge_->LastProbe(kCluster), first);

  ASSERT_TRUE(AwaitSleepers(clock_, 1));
  clock_.Advance(kPeriod - absl::Seconds(1));
  ASSERT_TRUE(bridge_->WaitIdle(kWait));
  EXPECT_EQ(sink_->Count(kCluster), 1u);

  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(Eventually([&] { return sink_->Count(kCluster) == 2; }));
  ASSERT_TRUE(bridge_->WaitIdle(kWait));
  EXPECT_EQ(bridge_->LastProbe(kCluster), first + kPeriod);
  EXPECT_EQ(sink_->Count("gone"), 0u);
}

TEST_F(ClusterBridgeTest, ProbeNowProbesOnTheCallingThreadAndReturnsTheState) {
  Register(kCluster, Spec(kAuthToken, "bad-token"));
  StartBridge();
  EXPECT_EQ(State(kCluster).reachable().reason(), kReasonProbeFailed);

  // The Secret is fixed in place: only a new probe can notice.
  ASSERT_OK_AND_ASSIGN(nlohmann::json secret,
                       client_->Get(SecretResource(kNamespace, "bad-token")));
  secret["data"]["token"] = absl::Base64Escape(server_->admin_token());
  ASSERT_OK(client_->Update(SecretResource(kNamespace, "bad-token"), secret));
  clock_.Advance(absl::Milliseconds(500));

  ASSERT_OK_AND_ASSIGN(v1::ClusterState state, bridge_->ProbeNow(kCluster, nullptr));
  EXPECT_EQ(state.reachable().reason(), kReasonProbeSucceeded);
  EXPECT_EQ(state.name(), kCluster);
  EXPECT_EQ(sink_->Count(kCluster), 2u);
  EXPECT_EQ(bridge_->LastProbe(kCluster), clock_.Now());

  EXPECT_THAT(bridge_->ProbeNow("absent", nullptr),
              StatusIs(absl::StatusCode::kNotFound, "cluster \"absent\" is not registered"));
  Cancellation cancelled;
  cancelled.Cancel();
  EXPECT_THAT(bridge_->ProbeNow(kCluster, &cancelled), StatusIs(absl::StatusCode::kCancelled));
  EXPECT_EQ(sink_->Count(kCluster), 2u);
}

TEST_F(ClusterBridgeTest, StopIsPromptWhileAProbeHangs) {
  SilentServer silent;
  v1::ClusterSpec spec = Spec(kAuthToken, "good-token");
  spec.mutable_agentless()->set_server(silent.url());
  Register(kCluster, spec);
  options_.probe_timeout = absl::Minutes(5);
  ASSERT_OK_AND_ASSIGN(projector_,
                       projections::ClusterProjector::Start(store_.get(), {.snapshot_every = 0}));
  sink_->set_projector(projector_.get());
  bridge_ =
      ClusterBridge::Start(connector_.get(), sink_.get(), projector_.get(), &clock_, options_);
  ASSERT_TRUE(silent.WaitForConnection(kWait));

  const absl::Time started = absl::Now();
  bridge_->Stop();
  EXPECT_LT(absl::Now() - started, absl::Seconds(5));
  // A probe cut short by Stop is not recorded.
  EXPECT_EQ(sink_->Count(kCluster), 0u);
  EXPECT_EQ(bridge_->LastProbe(kCluster), std::nullopt);
}

}  // namespace cluster_bridge_test
}  // namespace credledger::kubebridge
