// The Deployment manifests of docs/manifests/ deploy credledger as described (docs/kubernetes.md,
// "Installing"). Both, credledger-deployment.yaml (SQLite) and
// credledger-deployment-postgres.yaml: the real `credledger serve` accepts the container's
// arguments, each flag and all of them together with the pod's files in place; an
// unprivileged container whose only writable paths are the log's volume (if any) and a
// scratch folder; the RBAC manifest's ServiceAccount and namespace; TLS and mutual TLS from
// Secret credledger-tls, the signing key from a Secret and the authorization policy from a
// ConfigMap; a Service for the gRPC port; probes on the HTTP listener; the Lease in the pod's
// namespace, held as the pod. The SQLite manifest: one replica recreated (never two writers
// on one file) and the log on a ReadWriteOnce volume (docs/design.md, "One writer"). The
// PostgreSQL manifest's own rules are in deployment_manifest_postgres_test.cc.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "service/api/authorization_policy.h"
#include "test/integration/deployment_manifest_fixture.h"
#include "test/integration/manifest_yaml.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"

namespace credledger {
namespace deployment_manifest_test {

using kubebridge::StringAt;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kSqliteManifest[] = "credledger-deployment.yaml";
constexpr char kPostgresManifest[] = "credledger-deployment-postgres.yaml";

// The rules both manifests keep; the parameter is the manifest's file name.
class EveryDeploymentManifestTest : public testing::DeploymentManifestFixture,
                                    public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override { Load(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Manifests, EveryDeploymentManifestTest,
                         ::testing::Values(kSqliteManifest, kPostgresManifest),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param) == kSqliteManifest ? "Sqlite"
                                                                             : "Postgres";
                         });

TEST_P(EveryDeploymentManifestTest, EveryArgumentIsAFlagOfServe) {
  EXPECT_THAT(container_["command"], ElementsAre("credledger"));
  std::vector<std::string> argv = {CREDLEDGER_BINARY};
  for (const nlohmann::json& arg : container_["args"]) argv.push_back(arg.get<std::string>());
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ(argv[1], "serve");
  // serve parses every flag before --help and refuses an unknown one or a bad value (exit 2).
  argv.push_back("--help");
  ASSERT_OK_AND_ASSIGN(testing::RunResult run, testing::Run(argv, absl::Seconds(20)));
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST_P(EveryDeploymentManifestTest, ServeAcceptsTheArgumentsTogetherWithThePodsFiles) {
  const testing::RunResult run = ServeInPod();
  // A combination serve refuses (a Lease flag without --lease-name, --store without
  // --fingerprint-key, a password in --store, a network --listen without TLS, an unreadable
  // password file ...) exits 2 before anything starts. These arguments got further: past the
  // HTTP endpoint, the TLS files, the policy and the signing key, to the cluster connection
  // that only a cluster gives.
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--lease-name: the Lease needs a cluster connection")) << run.err;
}

TEST_P(EveryDeploymentManifestTest, RunsAsTheRbacAccountInItsNamespace) {
  std::vector<nlohmann::json> accounts = testing::OfKind(RbacObjects(), "ServiceAccount");
  ASSERT_EQ(accounts.size(), 1u);
  EXPECT_EQ(deployment_["spec"]["template"]["spec"]["serviceAccountName"],
            accounts[0]["metadata"]["name"]);
  for (const nlohmann::json& object : objects_) {
    EXPECT_EQ(StringAt(object, {"metadata", "namespace"}),
              StringAt(accounts[0], {"metadata", "namespace"}))
        << object["kind"] << " " << object["metadata"]["name"];
  }
}

TEST_P(EveryDeploymentManifestTest, TheContainerIsUnprivilegedAndWritesOnlyTheLogAndScratch) {
  nlohmann::json& pod = deployment_["spec"]["template"]["spec"]["securityContext"];
  EXPECT_EQ(pod["runAsNonRoot"], true);
  EXPECT_EQ(StringAt(pod, {"seccompProfile", "type"}), "RuntimeDefault");
  nlohmann::json& security = container_["securityContext"];
  EXPECT_EQ(security["allowPrivilegeEscalation"], false);
  EXPECT_EQ(security["readOnlyRootFilesystem"], true);
  EXPECT_THAT(security["capabilities"]["drop"], ElementsAre("ALL"));
  EXPECT_FALSE(security.value("privileged", false));

  // The SQLite log's volume; none for a log on PostgreSQL (no --db).
  const std::string db_volume =
      Flag("db").empty() ? "" : Mounted(Flag("db")).volume.value("name", "");
  for (const nlohmann::json& mount : container_["volumeMounts"]) {
    const std::string name = mount.value("name", "");
    if ((!db_volume.empty() && name == db_volume) || mount.value("mountPath", "") == "/tmp") {
      continue;
    }
    EXPECT_TRUE(mount.value("readOnly", false)) << name;
  }
  for (const char* kind : {"requests", "limits"}) {
    for (const char* resource : {"cpu", "memory"}) {
      EXPECT_TRUE(container_["resources"][kind].contains(resource)) << kind << " " << resource;
    }
  }
}

TEST_P(EveryDeploymentManifestTest, TlsAndTheSigningKeyComeFromSecretsAndThePolicyFromAConfigMap) {
  const std::vector<std::pair<std::string, std::string>> from_tls = {
      {"tls-cert", "tls.crt"}, {"tls-key", "tls.key"}, {"tls-client-ca", "ca.crt"}};
  for (const auto& [flag, key] : from_tls) {
    MountedFile file = Mounted(Flag(flag));
    EXPECT_EQ(StringAt(file.volume, {"secret", "secretName"}), "credledger-tls") << flag;
    EXPECT_EQ(file.key, key) << flag;
    EXPECT_TRUE(file.read_only) << flag;
  }
  MountedFile signing = Mounted(Flag("signing-key"));
  EXPECT_EQ(StringAt(signing.volume, {"secret", "secretName"}), "credledger-signing-key");

  // The policy ConfigMap is in the manifest, and the policy in it is one serve accepts.
  MountedFile policy = Mounted(Flag("authorization-policy"));
  const std::string config_map = StringAt(policy.volume, {"configMap", "name"});
  bool found = false;
  for (const nlohmann::json& object : testing::OfKind(objects_, "ConfigMap")) {
    if (StringAt(object, {"metadata", "name"}) != config_map) continue;
    found = true;
    const std::string yaml = StringAt(object, {"data", policy.key});
    ASSERT_FALSE(yaml.empty()) << "ConfigMap " << config_map << " has no key " << policy.key;
    absl::StatusOr<service::AuthorizationPolicy> parsed = service::AuthorizationPolicy::Parse(yaml);
    ASSERT_OK(parsed.status());
    EXPECT_TRUE(parsed->restrictive());
  }
  EXPECT_TRUE(found) << "no ConfigMap " << config_map << " in the manifest";
  EXPECT_TRUE(testing::OfKind(objects_, "Secret").empty())
      << "Secrets are created by the operator, never shipped in the manifest";
}

TEST_P(EveryDeploymentManifestTest, TheServiceExposesTheGrpcListener) {
  const std::string listen = Flag("listen");
  const std::string port_text = listen.substr(listen.rfind(':') + 1);
  int listen_port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(port_text, &listen_port)) << listen;
  EXPECT_EQ(listen_port, 7443);
  nlohmann::json grpc_port;
  for (const nlohmann::json& port : container_["ports"]) {
    if (port["name"] == "grpc") grpc_port = port;
  }
  EXPECT_EQ(grpc_port["containerPort"], listen_port);

  nlohmann::json service = Object("Service");
  EXPECT_EQ(service["spec"]["type"], "ClusterIP");
  EXPECT_EQ(service["spec"]["selector"], deployment_["spec"]["selector"]["matchLabels"]);
  EXPECT_EQ(deployment_["spec"]["template"]["metadata"]["labels"],
            deployment_["spec"]["selector"]["matchLabels"]);
  nlohmann::json& ports = service["spec"]["ports"];
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0]["name"], "grpc");
  EXPECT_EQ(ports[0]["port"], 7443);
  EXPECT_EQ(ports[0]["targetPort"], "grpc");
  EXPECT_EQ(ports[0]["appProtocol"], "grpc");
  EXPECT_EQ(ports[1]["name"], "http");
  EXPECT_EQ(ports[1]["targetPort"], "http");
}

TEST_P(EveryDeploymentManifestTest, ProbesAndMetricsUseTheHttpListener) {
  const std::string listen = Flag("http-listen");
  int http_port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(listen.substr(listen.rfind(':') + 1), &http_port)) << listen;
  nlohmann::json named;
  for (const nlohmann::json& port : container_["ports"]) {
    if (port["name"] == "http") named = port;
  }
  EXPECT_EQ(named["containerPort"], http_port);
  EXPECT_EQ(container_["livenessProbe"]["httpGet"]["path"], "/healthz");
  EXPECT_EQ(container_["livenessProbe"]["httpGet"]["port"], "http");
  EXPECT_EQ(container_["readinessProbe"]["httpGet"]["path"], "/readyz");
  EXPECT_EQ(container_["readinessProbe"]["httpGet"]["port"], "http");
}

TEST_P(EveryDeploymentManifestTest, TheLeaseIsHeldAsThePodInThePodsNamespaceWhereItsRoleIs) {
  EXPECT_EQ(Flag("lease-name"), "credledger");
  EXPECT_EQ(Flag("lease-namespace"), "$(POD_NAMESPACE)");
  EXPECT_EQ(Flag("lease-identity"), "$(POD_NAME)_$(POD_UID)");
  std::map<std::string, std::string> fields;
  for (const nlohmann::json& env : container_["env"]) {
    fields[env["name"]] = env["valueFrom"]["fieldRef"]["fieldPath"];
  }
  EXPECT_EQ(fields["POD_NAMESPACE"], "metadata.namespace");
  EXPECT_EQ(fields["POD_NAME"], "metadata.name");
  EXPECT_EQ(fields["POD_UID"], "metadata.uid");
  bool lease_role = false;
  for (const nlohmann::json& role : testing::OfKind(RbacObjects(), "Role")) {
    for (const nlohmann::json& rule : role["rules"]) {
      for (const nlohmann::json& resource : rule["resources"]) {
        lease_role =
            lease_role || (resource == "leases" &&
                           role["metadata"]["namespace"] == deployment_["metadata"]["namespace"]);
      }
    }
  }
  EXPECT_TRUE(lease_role) << "no Role grants leases in the Deployment's namespace";
}

// The SQLite manifest's own rules.
class SqliteDeploymentManifestTest : public testing::DeploymentManifestFixture {
 protected:
  void SetUp() override { Load(kSqliteManifest); }
};

TEST_F(SqliteDeploymentManifestTest, OneReplicaIsRecreatedWithTheLogOnAReadWriteOnceVolume) {
  EXPECT_EQ(deployment_["spec"]["replicas"], 1);
  EXPECT_EQ(deployment_["spec"]["strategy"]["type"], "Recreate");

  nlohmann::json claim = Object("PersistentVolumeClaim");
  EXPECT_THAT(claim["spec"]["accessModes"], ElementsAre("ReadWriteOnce"));
  MountedFile db = Mounted(Flag("db"));
  EXPECT_EQ(StringAt(db.volume, {"persistentVolumeClaim", "claimName"}),
            StringAt(claim, {"metadata", "name"}))
      << "--db=" << Flag("db") << " is not on the claim's volume";
  EXPECT_FALSE(db.read_only);
}

// The two manifests are alternatives: what they share is written the same way in both.
TEST(ManifestFilesTest, BothDeploymentManifestsShipThePolicyAndTheServiceAlike) {
  ASSERT_OK_AND_ASSIGN(
      std::vector<nlohmann::json> sqlite,
      testing::LoadManifest(absl::StrCat(CREDLEDGER_MANIFESTS_DIR, "/", kSqliteManifest)));
  ASSERT_OK_AND_ASSIGN(
      std::vector<nlohmann::json> postgres,
      testing::LoadManifest(absl::StrCat(CREDLEDGER_MANIFESTS_DIR, "/", kPostgresManifest)));
  for (const char* kind : {"ConfigMap", "Service"}) {
    EXPECT_EQ(testing::OfKind(sqlite, kind), testing::OfKind(postgres, kind)) << kind;
  }
}

TEST(ManifestFilesTest, TheCustomResourceDefinitionParses) {
  ASSERT_OK_AND_ASSIGN(
      std::vector<nlohmann::json> objects,
      testing::LoadManifest(absl::StrCat(CREDLEDGER_MANIFESTS_DIR, "/targetreport-crd.yaml")));
  std::vector<nlohmann::json> crds = testing::OfKind(objects, "CustomResourceDefinition");
  ASSERT_EQ(crds.size(), 1u);
  EXPECT_EQ(StringAt(crds[0], {"metadata", "name"}), "targetreports.solar.opendefense.cloud");
}

}  // namespace deployment_manifest_test
}  // namespace credledger
