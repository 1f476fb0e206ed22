// The ConfigMap witness against the test API server (docs/audit.md, "Witnesses"): what it
// reads and writes, and a real Server publishing its checkpoints there and refusing a log that
// no longer holds them.
#include "service/server/configmap_witness.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "service/server/server.h"
#include "test/kubeapi/api_server.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace configmap_witness_test {

using ::testing::HasSubstr;

const kubebridge::ResourceRef kWitness{"", "v1", "configmaps", "default", "credledger-witness"};

class ConfigMapWitnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));
    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig config,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    ASSERT_OK_AND_ASSIGN(admin_, kubebridge::KubeClient::New(config, {}));
    auto key = audit::SigningKey::Generate();
    ASSERT_OK(key);
    std::ofstream(dir_.path() / "signing-key.pem") << key->PrivatePem();
  }
  void TearDown() override {
    if (admin_ != nullptr) admin_->Stop();
  }

  void CreateWitnessConfigMap() {
    ASSERT_OK(admin_->Create(
        kWitness,
        {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", kWitness.name}}}}));
  }

  service::ConfigMapWitness Witness() {
    auto spec = audit::ParseWitnessSpec("--witness", "kubernetes:default/credledger-witness");
    EXPECT_OK(spec);
    return service::ConfigMapWitness(admin_.get(), *spec);
  }

  service::ServeOptions Options(const std::string& db) {
    service::ServeOptions options;
    options.grpc.insecure_allow_all = true;
    options.log.db_path = dir_.path() / db / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.kube.kubeconfig = api_->kubeconfig_path();
    options.audit.signing_key = dir_.path() / "signing-key.pem";
    options.audit.witness = "kubernetes:default/credledger-witness";
    return options;
  }

  static v1::Checkpoint Checkpoint(int64_t seq) {
    v1::Checkpoint c;
    c.set_seq(seq);
    c.set_chain_hash(std::string(32, 'c'));
    c.set_key_id("5d0c8e1f2a3b4c6d");
    c.set_signature(std::string(64, 's'));
    return c;
  }

  TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> admin_;
};

TEST_F(ConfigMapWitnessTest, AMissingConfigMapPointsAtTheManifests) {
  service::ConfigMapWitness witness = Witness();
  EXPECT_THAT(witness.Read(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("create it with the manifests")));
  EXPECT_THAT(witness.Append(Checkpoint(1)), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ConfigMapWitnessTest, KeepsTheNewestCheckpointsUnderItsDataKey) {
  ASSERT_NO_FATAL_FAILURE(CreateWitnessConfigMap());
  service::ConfigMapWitness witness = Witness();
  ASSERT_OK_AND_ASSIGN(std::vector<v1::Checkpoint> empty, witness.Read());
  EXPECT_TRUE(empty.empty());
  for (int64_t seq = 1; seq <= 18; ++seq) ASSERT_OK(witness.Append(Checkpoint(seq)));
  ASSERT_OK_AND_ASSIGN(std::vector<v1::Checkpoint> kept, witness.Read());
  ASSERT_EQ(kept.size(), audit::kWitnessHistory);
  EXPECT_EQ(kept.front().seq(), 18 - static_cast<int64_t>(audit::kWitnessHistory) + 1);
  EXPECT_EQ(kept.back().seq(), 18);
  ASSERT_OK_AND_ASSIGN(nlohmann::json object, admin_->Get(kWitness));
  EXPECT_EQ(object["data"][service::kWitnessDataKey], audit::RenderWitnessLines(kept));
}

TEST_F(ConfigMapWitnessTest, AServerPublishesItsHeadAndRefusesALogThatLostIt) {
  ASSERT_NO_FATAL_FAILURE(CreateWitnessConfigMap());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::Server> server,
                       service::Server::Start(Options("first")));
  const int64_t head = server->event_store()->HeadSeq();
  ASSERT_GT(head, 0) << "ServiceConfigured";
  server->Shutdown();
  ASSERT_OK_AND_ASSIGN(std::vector<v1::Checkpoint> witnessed, Witness().Read());
  ASSERT_FALSE(witnessed.empty());
  EXPECT_EQ(witnessed.back().seq(), head);

  // Another, empty database under the same witness: the history it witnessed is gone.
  EXPECT_THAT(service::Server::Start(Options("replaced")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr(absl::StrCat("the log ends at seq 0, before the checkpoint at "
                                              "seq ",
                                              head))));
}

}  // namespace configmap_witness_test
}  // namespace credledger::testing
