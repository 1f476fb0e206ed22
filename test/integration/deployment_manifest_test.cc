// docs/manifests/credledger-deployment.yaml deploys credledger as described
// (docs/kubernetes.md, "Installing"; docs/design.md, "One writer"): one replica recreated
// (never two writers), the log on a ReadWriteOnce volume, an unprivileged container whose only
// writable paths are the log and a scratch folder, the RBAC manifest's ServiceAccount, TLS and
// mutual TLS from Secret credledger-tls, the authorization policy from a ConfigMap, and a
// Service for the gRPC port. Every argument is checked against the real `credledger serve`
// flags.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "service/api/authorization_policy.h"
#include "test/integration/manifest_yaml.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"

namespace credledger {
namespace deployment_manifest_test {

using kubebridge::StringAt;
using ::testing::ElementsAre;

constexpr char kManifests[] = CREDLEDGER_MANIFESTS_DIR;

class DeploymentManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(objects_, testing::LoadManifest(absl::StrCat(
                                       kManifests, "/credledger-deployment.yaml")));
    std::vector<nlohmann::json> deployments = testing::OfKind(objects_, "Deployment");
    ASSERT_EQ(deployments.size(), 1u);
    deployment_ = deployments[0];
    const nlohmann::json& containers = deployment_["spec"]["template"]["spec"]["containers"];
    ASSERT_TRUE(containers.is_array());
    ASSERT_EQ(containers.size(), 1u);
    container_ = containers[0];
  }

  // The value of `--<flag>=<value>` among the container's arguments; "" when absent.
  std::string Flag(const std::string& flag) {
    const std::string prefix = absl::StrCat("--", flag, "=");
    for (const nlohmann::json& arg : container_.value("args", nlohmann::json::array())) {
      const std::string text = arg.get<std::string>();
      if (absl::StartsWith(text, prefix)) return text.substr(prefix.size());
    }
    return "";
  }

  // The pod volume mounted at the folder holding `file`, and the file's name in it.
  struct MountedFile {
    nlohmann::json volume;  // null when no volume is mounted there
    std::string key;
    bool read_only = false;
  };
  MountedFile Mounted(const std::string& file) {
    const std::filesystem::path path(file);
    for (const nlohmann::json& mount : container_["volumeMounts"]) {
      if (path.parent_path() != std::filesystem::path(mount.value("mountPath", ""))) continue;
      for (const nlohmann::json& volume : deployment_["spec"]["template"]["spec"]["volumes"]) {
        if (volume.value("name", "") == mount.value("name", "")) {
          return {volume, path.filename().string(), mount.value("readOnly", false)};
        }
      }
    }
    return {nullptr, "", false};
  }

  // The first object of `kind` (null, and a failure, when there is none).
  nlohmann::json Object(const std::string& kind) {
    std::vector<nlohmann::json> found = testing::OfKind(objects_, kind);
    if (!found.empty()) return found[0];
    ADD_FAILURE() << "the manifest has no " << kind;
    return nullptr;
  }

  std::vector<nlohmann::json> objects_;
  nlohmann::json deployment_;
  nlohmann::json container_;
};

TEST_F(DeploymentManifestTest, EveryArgumentIsAFlagOfServe) {
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

TEST_F(DeploymentManifestTest, OneReplicaIsRecreatedOnAReadWriteOnceVolumeAsTheRbacAccount) {
  EXPECT_EQ(deployment_["spec"]["replicas"], 1);
  EXPECT_EQ(deployment_["spec"]["strategy"]["type"], "Recreate");

  nlohmann::json claim = Object("PersistentVolumeClaim");
  EXPECT_THAT(claim["spec"]["accessModes"], ElementsAre("ReadWriteOnce"));
  MountedFile db = Mounted(Flag("db"));
  EXPECT_EQ(StringAt(db.volume, {"persistentVolumeClaim", "claimName"}),
            StringAt(claim, {"metadata", "name"}))
      << "--db=" << Flag("db") << " is not on the claim's volume";
  EXPECT_FALSE(db.read_only);

  ASSERT_OK_AND_ASSIGN(std::vector<nlohmann::json> rbac,
                       testing::LoadManifest(absl::StrCat(kManifests, "/credledger-rbac.yaml")));
  std::vector<nlohmann::json> accounts = testing::OfKind(rbac, "ServiceAccount");
  ASSERT_EQ(accounts.size(), 1u);
  EXPECT_EQ(deployment_["spec"]["template"]["spec"]["serviceAccountName"],
            accounts[0]["metadata"]["name"]);
  for (const nlohmann::json& object : objects_) {
    EXPECT_EQ(StringAt(object, {"metadata", "namespace"}),
              StringAt(accounts[0], {"metadata", "namespace"}))
        << object["kind"] << " " << object["metadata"]["name"];
  }
}

TEST_F(DeploymentManifestTest, TheContainerIsUnprivilegedAndWritesOnlyTheLogAndScratch) {
  nlohmann::json& pod = deployment_["spec"]["template"]["spec"]["securityContext"];
  EXPECT_EQ(pod["runAsNonRoot"], true);
  EXPECT_EQ(StringAt(pod, {"seccompProfile", "type"}), "RuntimeDefault");
  nlohmann::json& security = container_["securityContext"];
  EXPECT_EQ(security["allowPrivilegeEscalation"], false);
  EXPECT_EQ(security["readOnlyRootFilesystem"], true);
  EXPECT_THAT(security["capabilities"]["drop"], ElementsAre("ALL"));
  EXPECT_FALSE(security.value("privileged", false));

  const std::string db_volume = Mounted(Flag("db")).volume.value("name", "");
  for (const nlohmann::json& mount : container_["volumeMounts"]) {
    const std::string name = mount.value("name", "");
    if (name == db_volume || mount.value("mountPath", "") == "/tmp") continue;
    EXPECT_TRUE(mount.value("readOnly", false)) << name;
  }
  for (const char* kind : {"requests", "limits"}) {
    for (const char* resource : {"cpu", "memory"}) {
      EXPECT_TRUE(container_["resources"][kind].contains(resource)) << kind << " " << resource;
    }
  }
}

TEST_F(DeploymentManifestTest, TlsAndTheSigningKeyComeFromSecretsAndThePolicyFromAConfigMap) {
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

TEST_F(DeploymentManifestTest, TheServiceExposesTheGrpcListener) {
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

TEST_F(DeploymentManifestTest, ProbesAndMetricsUseTheHttpListener) {
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

TEST_F(DeploymentManifestTest, TheLeaseIsInThePodsNamespaceWhereItsRoleIs) {
  EXPECT_EQ(Flag("lease-name"), "credledger");
  EXPECT_EQ(Flag("lease-namespace"), "$(POD_NAMESPACE)");
  std::map<std::string, std::string> fields;
  for (const nlohmann::json& env : container_["env"]) {
    fields[env["name"]] = env["valueFrom"]["fieldRef"]["fieldPath"];
  }
  EXPECT_EQ(fields["POD_NAMESPACE"], "metadata.namespace");
  ASSERT_OK_AND_ASSIGN(std::vector<nlohmann::json> rbac,
                       testing::LoadManifest(absl::StrCat(kManifests, "/credledger-rbac.yaml")));
  bool lease_role = false;
  for (const nlohmann::json& role : testing::OfKind(rbac, "Role")) {
    for (const nlohmann::json& rule : role["rules"]) {
      for (const nlohmann::json& resource : rule["resources"]) {
        lease_role = lease_role || (resource == "leases" &&
                                    role["metadata"]["namespace"] ==
                                        deployment_["metadata"]["namespace"]);
      }
    }
  }
  EXPECT_TRUE(lease_role) << "no Role grants leases in the Deployment's namespace";
}

TEST(ManifestFilesTest, TheCustomResourceDefinitionParses) {
  ASSERT_OK_AND_ASSIGN(std::vector<nlohmann::json> objects,
                       testing::LoadManifest(absl::StrCat(kManifests, "/targetreport-crd.yaml")));
  std::vector<nlohmann::json> crds = testing::OfKind(objects, "CustomResourceDefinition");
  ASSERT_EQ(crds.size(), 1u);
  EXPECT_EQ(StringAt(crds[0], {"metadata", "name"}), "targetreports.solar.opendefense.cloud");
}

}  // namespace deployment_manifest_test
}  // namespace credledger
