// The Lease fence in a real Server against the test API server (docs/operations.md,
// "The Lease fence"; docs/design.md, "One writer"): a second replica waits until the first
// gives the Lease up at shutdown (its /readyz names the Lease meanwhile), and a replica that
// sees another holder stops writing at once.
#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include <fstream>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "service/server/server.h"
#include "store/event_store.h"
#include "test/kubeapi/api_server.h"
#include "test/support/captured_log.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace lease_integration_test {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

const kubebridge::ResourceRef kLease{"coordination.k8s.io", "v1", "leases", "default",
                                     "credledger"};

class LeaseIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));
    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig config,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    ASSERT_OK_AND_ASSIGN(admin_, kubebridge::KubeClient::New(config, {}));
  }
  void TearDown() override {
    if (admin_ != nullptr) admin_->Stop();
  }

  service::ServeOptions Options(const std::string& replica) {
    service::ServeOptions options;
    options.grpc.insecure_allow_all = true;
    options.log.db_path = dir_.path() / replica / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.kube.kubeconfig = api_->kubeconfig_path();
    options.lease.name = "credledger";
    options.lease.namespace_name = "default";
    options.lease.identity = replica;
    options.lease.duration = absl::Seconds(3);
    return options;
  }

  std::string Holder() {
    absl::StatusOr<nlohmann::json> lease = admin_->Get(kLease);
    EXPECT_OK(lease);
    return lease.ok() ? (*lease)["spec"].value("holderIdentity", "") : "";
  }

  static grpc::Status Register(service::Server& server, const std::string& name) {
    auto stub = v1::TargetService::NewStub(
        grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::RegisterTargetRequest request;
    request.set_namespace_("default");
    request.set_name(name);
    request.set_request_id("register-" + name);
    v1::RegisterTargetResponse response;
    return stub->RegisterTarget(&context, request, &response);
  }

  // "<status> <body>" of GET /readyz from the HTTP endpoint whose port `port_file` names.
  static std::string Readyz(const std::filesystem::path& port_file) {
    int port = 0;
    std::ifstream in(port_file);
    if (!(in >> port)) return "no port in " + port_file.string();
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(20);
    httplib::Result res = client.Get("/readyz");
    if (!res) return "no response: " + httplib::to_string(res.error());
    return absl::StrCat(res->status, " ", res->body);
  }

  TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> admin_;
};

TEST_F(LeaseIntegrationTest, TheNextReplicaStartsWhenTheFirstReleasesTheLease) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::Server> first,
                       service::Server::Start(Options("replica-a")));
  EXPECT_EQ(Holder(), "replica-a");

  kubebridge::Cancellation cancel;
  service::ServeOptions second_options = Options("replica-b");
  second_options.lease.start_cancel = &cancel;
  second_options.http.listen_address = "127.0.0.1:0";
  second_options.http.port_file = dir_.path() / "replica-b-http-port";
  absl::Notification second_started;
  absl::StatusOr<std::unique_ptr<service::Server>> second;
  std::thread starter([&] {
    second = service::Server::Start(second_options);
    second_started.Notify();
  });
  // Several renewal periods go by: the second replica keeps waiting while the first renews,
  // and its /readyz says what it waits for.
  EXPECT_FALSE(second_started.WaitForNotificationWithTimeout(absl::Seconds(2)));
  EXPECT_EQ(Holder(), "replica-a");
  EXPECT_EQ(Readyz(second_options.http.port_file),
            "503 not ready: lease: standby: waiting to acquire the Lease (another replica may be "
            "writing)\n");

  first->Shutdown();  // releases the Lease
  ASSERT_TRUE(second_started.WaitForNotificationWithTimeout(absl::Seconds(20)));
  starter.join();
  ASSERT_OK(second);
  EXPECT_EQ(Holder(), "replica-b");
  EXPECT_TRUE(Register(**second, "edge-1").ok());
  (*second)->Shutdown();
  EXPECT_EQ(Holder(), "");
}

TEST_F(LeaseIntegrationTest, AReplicaThatSeesAnotherHolderStopsWriting) {
  absl::Notification lost;
  service::ServeOptions options = Options("replica-a");
  options.lease.on_lost = [&lost] { lost.Notify(); };
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::Server> server, service::Server::Start(options));
  ASSERT_TRUE(Register(*server, "edge-1").ok());
  const int64_t head = server->event_store()->HeadSeq();

  // Another replica writes itself into the Lease (for example after a network partition).
  ASSERT_OK_AND_ASSIGN(nlohmann::json lease, admin_->Get(kLease));
  lease["spec"]["holderIdentity"] = "replica-b";
  ASSERT_OK(admin_->Update(kLease, lease).status());

  ASSERT_TRUE(lost.WaitForNotificationWithTimeout(absl::Seconds(20)));
  grpc::Status refused = Register(*server, "edge-2");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(refused.error_message(), HasSubstr("lease default/credledger is not held"));
  EXPECT_EQ(server->event_store()->HeadSeq(), head);
  server->Shutdown();
  EXPECT_EQ(Holder(), "replica-b");  // a lost Lease is not released
}

// Refused before the start logs that it serves without the kube bridge, which would read as
// a start that went on.
TEST_F(LeaseIntegrationTest, ALeaseWithoutAClusterConnectionIsRefused) {
  service::ServeOptions options = Options("replica-a");
  options.kube.kubeconfig.clear();
  CapturedLog log;
  EXPECT_THAT(service::Server::Start(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--lease-name: the Lease needs a cluster connection")));
  EXPECT_THAT(log.Lines("no cluster connection (--kubeconfig, KUBECONFIG or in-cluster): "
                        "serving the API without the kube bridge; no Kubernetes object will "
                        "be written"),
              IsEmpty());
}

}  // namespace lease_integration_test
}  // namespace credledger::testing
