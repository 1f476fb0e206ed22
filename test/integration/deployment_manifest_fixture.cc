#include "test/integration/deployment_manifest_fixture.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/integration/manifest_yaml.h"
#include "test/integration/pod_layout.h"
#include "test/kubeapi/tls_material.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace {

constexpr char kManifests[] = CREDLEDGER_MANIFESTS_DIR;
constexpr char kBinary[] = CREDLEDGER_BINARY;

// The Secrets of docs/kubernetes.md, "Installing", made in `dir` as the steps there make them.
// Errors: those of GenerateTlsMaterial and RunOk.
absl::StatusOr<SecretData> InstallationSecrets(const std::filesystem::path& dir) {
  ASSIGN_OR_RETURN(const kubeapi::TlsMaterial tls,
                   kubeapi::GenerateTlsMaterial({"credledger.credledger-system.svc"}, {}));
  const std::string signing = (dir / "signing-key.pem").string();
  const std::string fingerprint = (dir / "fingerprint-key").string();
  RETURN_IF_ERROR(RunOk({kBinary, "keygen", "--private-key", signing, "--public-key",
                         (dir / "signing-key.pub.pem").string()},
                        absl::Seconds(20)));
  RETURN_IF_ERROR(RunOk({kBinary, "keygen", "--fingerprint-key", fingerprint}, absl::Seconds(20)));
  return SecretData{{"credledger-tls",
                     {{"tls.crt", tls.server_cert_pem},
                      {"tls.key", tls.server_key_pem},
                      {"ca.crt", tls.ca_cert_pem}}},
                    {"credledger-signing-key", {{"signing-key.pem", ReadText(signing)}}},
                    {"credledger-fingerprint-key", {{"fingerprint-key", ReadText(fingerprint)}}},
                    {"credledger-postgres",
                     {{"password", "a-database-password\n"}, {"ca.crt", tls.ca_cert_pem}}}};
}

}  // namespace

void DeploymentManifestFixture::Load(const std::string& file_name) {
  ASSERT_OK_AND_ASSIGN(objects_, LoadManifest(absl::StrCat(kManifests, "/", file_name)));
  std::vector<nlohmann::json> deployments = OfKind(objects_, "Deployment");
  ASSERT_EQ(deployments.size(), 1u);
  deployment_ = deployments[0];
  const nlohmann::json& containers = deployment_["spec"]["template"]["spec"]["containers"];
  ASSERT_TRUE(containers.is_array());
  ASSERT_EQ(containers.size(), 1u);
  container_ = containers[0];
}

std::string DeploymentManifestFixture::Flag(const std::string& flag) const {
  const std::string prefix = absl::StrCat("--", flag, "=");
  for (const nlohmann::json& arg : container_.value("args", nlohmann::json::array())) {
    const std::string text = arg.get<std::string>();
    if (absl::StartsWith(text, prefix)) return text.substr(prefix.size());
  }
  return "";
}

DeploymentManifestFixture::MountedFile DeploymentManifestFixture::Mounted(
    const std::string& file) const {
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

nlohmann::json DeploymentManifestFixture::Object(const std::string& kind) const {
  std::vector<nlohmann::json> found = OfKind(objects_, kind);
  if (!found.empty()) return found[0];
  ADD_FAILURE() << "the manifest has no " << kind;
  return nullptr;
}

std::vector<nlohmann::json> DeploymentManifestFixture::RbacObjects() {
  absl::StatusOr<std::vector<nlohmann::json>> rbac =
      LoadManifest(absl::StrCat(kManifests, "/credledger-rbac.yaml"));
  EXPECT_OK(rbac);
  return rbac.ok() ? *rbac : std::vector<nlohmann::json>();
}

RunResult DeploymentManifestFixture::ServeInPod() const {
  TempDir dir;
  std::filesystem::create_directory(dir.path() / "keys");
  absl::StatusOr<SecretData> secrets = InstallationSecrets(dir.path() / "keys");
  EXPECT_OK(secrets);
  if (!secrets.ok()) return RunResult{};
  const std::filesystem::path root = dir.path() / "pod";
  absl::StatusOr<std::vector<std::string>> args = LayOutPod(deployment_, objects_, *secrets, root);
  EXPECT_OK(args);
  if (!args.ok()) return RunResult{};
  std::vector<std::string> argv = {kBinary};
  for (const std::string& arg : *args) {
    argv.push_back(absl::StartsWith(arg, "--http-listen=") ? "--http-listen=127.0.0.1:0" : arg);
  }
  absl::StatusOr<RunResult> run =
      testing::Run(argv, absl::Seconds(30),
                   {"KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT",
                    "PGPASSWORD", "PGPASSFILE", "PGSERVICE", "CREDLEDGER_SERVER"},
                   {absl::StrCat("TMPDIR=", (root / "tmp").string())});
  EXPECT_OK(run);
  return run.ok() ? *run : RunResult{};
}

}  // namespace credledger::testing
