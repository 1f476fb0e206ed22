#include "test/kubeapi/kubeconfig.h"

#include "absl/strings/str_cat.h"
#include "test/kubeapi/encoding.h"

namespace credledger::kubeapi {
namespace {

// A YAML double-quoted scalar (JSON string syntax is valid YAML).
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace

std::string RenderKubeconfig(const KubeconfigSpec& spec) {
  const std::string name = Quote(spec.name);
  return absl::StrCat(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: ", name, "\n"
      "  cluster:\n"
      "    server: ", Quote(spec.server), "\n"
      "    certificate-authority-data: ", Base64Encode(spec.ca_pem), "\n"
      "users:\n"
      "- name: ", name, "\n"
      "  user:\n"
      "    token: ", Quote(spec.token), "\n"
      "contexts:\n"
      "- name: ", name, "\n"
      "  context:\n"
      "    cluster: ", name, "\n"
      "    user: ", name, "\n"
      "    namespace: ", Quote(spec.namespace_name), "\n"
      "current-context: ", name, "\n"
      "preferences: {}\n");
}

}  // namespace credledger::kubeapi
