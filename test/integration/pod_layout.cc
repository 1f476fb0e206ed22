#include "test/integration/pod_layout.h"

#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "test/integration/manifest_yaml.h"
#include "test/support/file_text.h"

namespace credledger::testing {
namespace {

using kubebridge::StringAt;

constexpr char kPodNameSuffix[] = "-7c9d8f6b5-x2k4q";
constexpr char kPodUid[] = "5f0c2a9e-3b7d-4e61-9a8f-2d4c6b1e7a30";

// The ConfigMap of `objects` named `name`, or null.
nlohmann::json FindConfigMap(const std::vector<nlohmann::json>& objects, const std::string& name) {
  for (const nlohmann::json& object : OfKind(objects, "ConfigMap")) {
    if (StringAt(object, {"metadata", "name"}) == name) return object;
  }
  return nullptr;
}

// Writes each key of `data` as a file in `folder`.
absl::Status WriteKeys(const std::filesystem::path& folder,
                       const std::map<std::string, std::string>& data) {
  for (const auto& [key, bytes] : data) RETURN_IF_ERROR(WriteTextChecked(folder / key, bytes));
  return absl::OkStatus();
}

// Fills `folder` with the content of pod volume `volume`.
absl::Status WriteVolume(const nlohmann::json& volume, const std::vector<nlohmann::json>& objects,
                         const SecretData& secrets, const std::filesystem::path& folder) {
  const std::string name = volume.value("name", "");
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return absl::InternalError(absl::StrCat("cannot create ", folder.string()));
  if (volume.contains("emptyDir") || volume.contains("persistentVolumeClaim")) {
    return absl::OkStatus();
  }
  for (const char* kind : {"secret", "configMap"}) {
    if (volume.contains(kind) && volume[kind].contains("items")) {
      return absl::InvalidArgumentError(
          absl::StrCat("volume ", name, ": a projection by items is not laid out"));
    }
  }
  if (volume.contains("secret")) {
    const std::string secret = StringAt(volume, {"secret", "secretName"});
    auto found = secrets.find(secret);
    if (found == secrets.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "volume ", name, ": Secret ", secret, " is not among those the installation creates"));
    }
    return WriteKeys(folder, found->second);
  }
  if (volume.contains("configMap")) {
    const std::string config_map = StringAt(volume, {"configMap", "name"});
    const nlohmann::json object = FindConfigMap(objects, config_map);
    if (object.is_null()) {
      return absl::InvalidArgumentError(
          absl::StrCat("volume ", name, ": ConfigMap ", config_map, " is not in the manifest"));
    }
    const nlohmann::json keys = object.value("data", nlohmann::json::object());
    std::map<std::string, std::string> data;
    for (const auto& [key, value] : keys.items()) {
      data[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
    return WriteKeys(folder, data);
  }
  return absl::InvalidArgumentError(absl::StrCat("volume ", name,
                                                 ": only secret, configMap, emptyDir and "
                                                 "persistentVolumeClaim volumes are laid out"));
}

// The `$(NAME)` replacements of the container's env, as kubelet expands them in arguments.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> EnvExpansions(
    const nlohmann::json& container, const nlohmann::json& deployment) {
  const std::map<std::string, std::string> fields = {
      {"metadata.name", absl::StrCat(StringAt(deployment, {"metadata", "name"}), kPodNameSuffix)},
      {"metadata.uid", kPodUid},
      {"metadata.namespace", StringAt(deployment, {"metadata", "namespace"})}};
  std::vector<std::pair<std::string, std::string>> expansions;
  for (const nlohmann::json& env : container.value("env", nlohmann::json::array())) {
    const std::string name = env.value("name", "");
    std::string value = env.value("value", "");
    if (env.contains("valueFrom")) {
      auto field = fields.find(StringAt(env, {"valueFrom", "fieldRef", "fieldPath"}));
      if (field == fields.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "env ", name, ": only metadata.name, metadata.uid and metadata.namespace are given"));
      }
      value = field->second;
    }
    expansions.emplace_back(absl::StrCat("$(", name, ")"), value);
  }
  return expansions;
}

// `arg` with `root` put before every absolute path under one of `mount_paths`. A path starts
// the argument or follows '=', ':', ',' or a space (`--db=/var/...`, `sslrootcert=/etc/...`).
std::string UnderRoot(const std::string& arg, const std::vector<std::string>& mount_paths,
                      const std::filesystem::path& root) {
  std::string moved;
  for (size_t i = 0; i < arg.size(); ++i) {
    const bool token_start =
        i == 0 || arg[i - 1] == '=' || arg[i - 1] == ':' || arg[i - 1] == ',' || arg[i - 1] == ' ';
    if (token_start && arg[i] == '/') {
      for (const std::string& mount : mount_paths) {
        const size_t end = i + mount.size();
        if (arg.compare(i, mount.size(), mount) == 0 &&
            (end == arg.size() || arg[end] == '/' || arg[end] == ' ' || arg[end] == ',')) {
          moved += root.string();
          break;
        }
      }
    }
    moved += arg[i];
  }
  return moved;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> LayOutPod(const nlohmann::json& deployment,
                                                   const std::vector<nlohmann::json>& objects,
                                                   const SecretData& secrets,
                                                   const std::filesystem::path& root) {
  const nlohmann::json& pod = deployment["spec"]["template"]["spec"];
  const nlohmann::json& container = pod["containers"][0];
  std::vector<std::string> mount_paths;
  for (const nlohmann::json& mount : container.value("volumeMounts", nlohmann::json::array())) {
    const std::string path = mount.value("mountPath", "");
    nlohmann::json volume = nullptr;
    for (const nlohmann::json& candidate : pod.value("volumes", nlohmann::json::array())) {
      if (candidate.value("name", "") == mount.value("name", "")) volume = candidate;
    }
    if (volume.is_null() || !absl::StartsWith(path, "/")) {
      return absl::InvalidArgumentError(absl::StrCat("volume mount ", mount.value("name", ""),
                                                     ": no such volume, or a relative path"));
    }
    RETURN_IF_ERROR(WriteVolume(volume, objects, secrets, root / path.substr(1)));
    mount_paths.push_back(path);
  }
  ASSIGN_OR_RETURN(const auto expansions, EnvExpansions(container, deployment));
  std::vector<std::string> args;
  for (const nlohmann::json& arg : container.value("args", nlohmann::json::array())) {
    if (!arg.is_string()) return absl::InvalidArgumentError("args: every argument is a string");
    args.push_back(
        UnderRoot(absl::StrReplaceAll(arg.get<std::string>(), expansions), mount_paths, root));
  }
  return args;
}

}  // namespace credledger::testing
