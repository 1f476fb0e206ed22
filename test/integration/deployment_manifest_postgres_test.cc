// docs/manifests/credledger-deployment-postgres.yaml runs two replicas of credledger on one
// event log in PostgreSQL (docs/kubernetes.md, "Installing"; docs/postgres.md, "The fence";
// docs/operations.md, "The Lease fence"): no volume for the log; --store names the database
// with TLS verified against a mounted CA and no password; the password and the fingerprint key
// come from Secrets mounted read-only; a rollout that can finish although only the writer is
// ever ready; a disruption budget and a preference for two nodes; the Service behind the
// readiness probe, so only the writer gets calls. The rules it shares with the SQLite manifest
// (serve accepts the arguments, security, TLS, policy, probes, the Lease) are checked in
// deployment_manifest_test.cc.
#include <libpq-fe.h>

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "test/integration/deployment_manifest_fixture.h"
#include "test/integration/manifest_yaml.h"

namespace credledger {
namespace deployment_manifest_postgres_test {

using kubebridge::StringAt;
using ::testing::IsEmpty;
using ::testing::Not;

// The keywords and values of a libpq connection string as libpq reads them; empty, and a
// failure, when it does not parse.
std::map<std::string, std::string> ConninfoValues(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    ADD_FAILURE() << "--store does not parse: " << (error == nullptr ? "out of memory" : error);
    PQfreemem(error);
    return {};
  }
  std::map<std::string, std::string> values;
  for (const PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val != nullptr) values[option->keyword] = option->val;
  }
  PQconninfoFree(options);
  return values;
}

class PostgresDeploymentManifestTest : public testing::DeploymentManifestFixture {
 protected:
  void SetUp() override { Load("credledger-deployment-postgres.yaml"); }

  const nlohmann::json& PodSpec() { return deployment_["spec"]["template"]["spec"]; }
};

TEST_F(PostgresDeploymentManifestTest, TwoReplicasShareTheLogInPostgresWithoutAVolume) {
  EXPECT_EQ(deployment_["spec"]["replicas"], 2);
  EXPECT_THAT(Flag("store"), Not(IsEmpty()));
  EXPECT_EQ(Flag("db"), "");
  EXPECT_TRUE(testing::OfKind(objects_, "PersistentVolumeClaim").empty());
  for (const nlohmann::json& volume : PodSpec()["volumes"]) {
    EXPECT_FALSE(volume.contains("persistentVolumeClaim")) << volume["name"];
  }
}

// Only the writer is ever ready: the replica that has not got the Lease answers /readyz with
// 503. So a rollout must not wait for a new pod to be ready before it stops the old writer:
// the new pod becomes ready only after the old writer has gone, and with maxUnavailable below
// 100% Kubernetes would keep the old writer forever. A surge pod starts first, as a standby.
TEST_F(PostgresDeploymentManifestTest, ARolloutAddsAStandbyAndThenStopsTheOldWriter) {
  const nlohmann::json& strategy = deployment_["spec"]["strategy"];
  EXPECT_EQ(strategy["type"], "RollingUpdate");
  EXPECT_EQ(strategy["rollingUpdate"]["maxSurge"], 1);
  EXPECT_EQ(strategy["rollingUpdate"]["maxUnavailable"], "100%");
}

TEST_F(PostgresDeploymentManifestTest, TheStoreNamesTheDatabaseOverVerifiedTlsWithoutAPassword) {
  const std::string store = Flag("store");
  EXPECT_FALSE(absl::StartsWith(store, "postgres")) << "keyword=value pairs, not a URI";
  EXPECT_FALSE(absl::StrContains(store, "\n")) << store;
  std::map<std::string, std::string> values = ConninfoValues(store);
  for (const char* keyword : {"host", "port", "dbname", "user"}) {
    EXPECT_THAT(values[keyword], Not(IsEmpty())) << keyword;
  }
  EXPECT_EQ(values["password"], "");
  EXPECT_EQ(values["sslmode"], "verify-full");
  EXPECT_EQ(values["target_session_attrs"], "read-write");
  MountedFile ca = Mounted(values["sslrootcert"]);
  EXPECT_EQ(StringAt(ca.volume, {"secret", "secretName"}), "credledger-postgres")
      << "sslrootcert=" << values["sslrootcert"];
  EXPECT_EQ(ca.key, "ca.crt");
  EXPECT_TRUE(ca.read_only);
}

TEST_F(PostgresDeploymentManifestTest, ThePasswordAndTheFingerprintKeyComeFromSecretsReadOnly) {
  MountedFile password = Mounted(Flag("store-password-file"));
  EXPECT_EQ(StringAt(password.volume, {"secret", "secretName"}), "credledger-postgres");
  EXPECT_EQ(password.key, "password");
  EXPECT_TRUE(password.read_only);
  MountedFile fingerprint = Mounted(Flag("fingerprint-key"));
  EXPECT_EQ(StringAt(fingerprint.volume, {"secret", "secretName"}), "credledger-fingerprint-key");
  EXPECT_EQ(fingerprint.key, "fingerprint-key");
  EXPECT_TRUE(fingerprint.read_only);
}

TEST_F(PostgresDeploymentManifestTest, ABudgetKeepsOneReplicaAndTheTwoPreferDifferentNodes) {
  const nlohmann::json& labels = deployment_["spec"]["selector"]["matchLabels"];
  nlohmann::json budget = Object("PodDisruptionBudget");
  EXPECT_EQ(budget["apiVersion"], "policy/v1");
  EXPECT_EQ(budget["spec"]["minAvailable"], 1);
  EXPECT_EQ(budget["spec"]["selector"]["matchLabels"], labels);

  const nlohmann::json& anti = PodSpec()["affinity"]["podAntiAffinity"];
  EXPECT_FALSE(anti.contains("requiredDuringSchedulingIgnoredDuringExecution"))
      << "a cluster of one node must still run both";
  const nlohmann::json& preferred = anti["preferredDuringSchedulingIgnoredDuringExecution"];
  ASSERT_TRUE(preferred.is_array());
  ASSERT_EQ(preferred.size(), 1u);
  const nlohmann::json& term = preferred[0]["podAffinityTerm"];
  EXPECT_EQ(term["topologyKey"], "kubernetes.io/hostname");
  EXPECT_EQ(term["labelSelector"]["matchLabels"], labels);
  EXPECT_EQ(deployment_["spec"]["template"]["metadata"]["labels"], labels);
}

// The standby answers /readyz with 503 (the probes are checked with the SQLite manifest's),
// and the Service routes to ready pods only: calls reach the writer.
TEST_F(PostgresDeploymentManifestTest, TheServiceLeavesOutTheStandby) {
  nlohmann::json service = Object("Service");
  EXPECT_FALSE(service["spec"].value("publishNotReadyAddresses", false));
}

}  // namespace deployment_manifest_postgres_test
}  // namespace credledger
