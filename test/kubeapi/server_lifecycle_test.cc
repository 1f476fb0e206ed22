// Tests of the server's life cycle: state files and kubeconfig, TLS names, prompt Stop()
// with idle connections, and workers freed when watch clients go away.
#include <httplib.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/encoding.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace server_lifecycle_test {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

using ServerLifecycleTest = ApiServerTest;

TEST_F(ServerLifecycleTest, KubeconfigNamesServerCaAndAdminToken) {
  std::string kubeconfig = ReadFile(server_->kubeconfig_path());
  EXPECT_NE(kubeconfig.find(absl::StrCat("server: \"", server_->url(), "\"")), std::string::npos)
      << kubeconfig;
  EXPECT_NE(kubeconfig.find(absl::StrCat("certificate-authority-data: ", Base64Encode(server_->ca_pem()))),
            std::string::npos);
  EXPECT_NE(kubeconfig.find(absl::StrCat("token: \"", server_->admin_token(), "\"")), std::string::npos);
  EXPECT_NE(kubeconfig.find("current-context: \"credledger-test\""), std::string::npos);
  EXPECT_EQ(ReadFile(server_->ca_path()), server_->ca_pem());
  EXPECT_EQ(server_->url(), absl::StrCat("https://127.0.0.1:", server_->port()));
}

TEST_F(ServerLifecycleTest, CertificateVerifiesForLocalhostAndLoopbackIp) {
  for (const char* host : {"localhost", "127.0.0.1"}) {
    httplib::SSLClient client(host, server_->port());
    client.set_ca_cert_path(server_->ca_path().string());
    client.enable_server_certificate_verification(true);
    httplib::Result result = client.Get("/version");
    ASSERT_TRUE(result) << host << ": " << httplib::to_string(result.error());
    EXPECT_EQ(result->status, 200);
  }
}

TEST_F(ServerLifecycleTest, StopEndsIdleKeepAliveConnectionsPromptly) {
  Client client = Admin();
  ASSERT_EQ(client.Get("/api/v1/namespaces").status, 200);  // leaves a kept-alive connection
  absl::Time before = absl::Now();
  server_->Stop();
  EXPECT_LT(absl::Now() - before, absl::Seconds(2));
  server_->Stop();  // idempotent
}

class FewWorkersTest : public ApiServerTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions options = ApiServerTest::Options();
    options.worker_threads = 3;
    return options;
  }
};

// Fault: a watch whose client disconnected kept its worker until timeoutSeconds, so a
// small pool ran dry and the server stopped answering.
TEST_F(FewWorkersTest, WatchesOfClientsThatWentAwayFreeTheirWorkers) {
  for (int round = 0; round < 3; ++round) {
    std::vector<std::unique_ptr<WatchReader>> watches;
    for (int i = 0; i < 2; ++i) {
      watches.push_back(std::make_unique<WatchReader>(
          *server_, server_->admin_token(), "/api/v1/namespaces?watch=true&resourceVersion=0"));
      ASSERT_FALSE(watches.back()->WaitForEvents(4).empty());  // connected and streaming
    }
    watches.clear();  // the clients hang up
    Client client = Admin();
    EXPECT_EQ(client.Get("/api/v1/namespaces/default").status, 200) << "round " << round;
  }
}

}  // namespace server_lifecycle_test
}  // namespace credledger::kubeapi::testing
