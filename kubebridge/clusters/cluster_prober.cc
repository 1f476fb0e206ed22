#include "kubebridge/clusters/cluster_prober.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kubebridge/client/status_mapping.h"
#include "kubebridge/model/connection_errors.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {
namespace {

// The discovery results of a successful probe.
struct Discovery {
  std::string server_version;
  std::vector<std::string> api_groups;
};

// GETs `path` and parses the body as a JSON object. Client errors already start with
// "GET <path>"; parse errors are given that prefix here.
absl::StatusOr<nlohmann::json> GetJson(KubeClient& client, absl::string_view path,
                                       Cancellation* cancel) {
  ASSIGN_OR_RETURN(std::string body, client.RawGet(path, cancel));
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) {
    return absl::InternalError(absl::StrCat("GET ", path, ": the response is not a JSON object"));
  }
  return parsed;
}

// /version gitVersion and the sorted group names of /apis.
absl::StatusOr<Discovery> Discover(KubeClient& client, Cancellation* cancel) {
  Discovery discovery;
  ASSIGN_OR_RETURN(nlohmann::json version, GetJson(client, "/version", cancel));
  auto git_version = version.find("gitVersion");
  if (git_version == version.end() || !git_version->is_string() ||
      git_version->get_ref<const std::string&>().empty()) {
    return absl::InternalError("GET /version: the response has no gitVersion");
  }
  discovery.server_version = git_version->get<std::string>();

  ASSIGN_OR_RETURN(nlohmann::json apis, GetJson(client, "/apis", cancel));
  auto groups = apis.find("groups");
  if (groups == apis.end() || !groups->is_array()) {
    return absl::InternalError("GET /apis: the response has no groups list");
  }
  for (const nlohmann::json& group : *groups) {
    auto name = group.find("name");  // end() for a non-object
    if (name == group.end() || !name->is_string()) {
      return absl::InternalError("GET /apis: a group has no name");
    }
    if (!name->get_ref<const std::string&>().empty()) {
      discovery.api_groups.push_back(name->get<std::string>());
    }
  }
  std::sort(discovery.api_groups.begin(), discovery.api_groups.end());
  return discovery;
}

// Connects to `cluster` and reads its discovery endpoints. The message of an error is the
// text to record: it names the cluster once, and of what the probed cluster's API server
// answered it keeps only the request and the HTTP status (ServerFreeMessage), since a
// registered cluster's words are not ours to trust (it could echo the credential it was
// sent). Connect's errors come from the home cluster and the credential provider (never
// quoted) and already name the cluster.
absl::StatusOr<Discovery> Probe(ClusterConnector& connector, const v1::ClusterState& cluster,
                                const KubeClientOptions& options, std::string* auth_type,
                                Cancellation* cancel) {
  ASSIGN_OR_RETURN(ConnectionConfig config, connector.Connect(cluster, auth_type, cancel));
  const std::string label = absl::StrCat("cluster \"", cluster.name(), "\"");
  absl::StatusOr<std::unique_ptr<KubeClient>> client = KubeClient::New(std::move(config), options);
  if (!client.ok()) return Annotate(client.status(), label);
  absl::StatusOr<Discovery> discovery = Discover(**client, cancel);
  (*client)->Stop();
  if (!discovery.ok()) {
    return absl::Status(discovery.status().code(),
                        absl::StrCat(label, ": ", ServerFreeMessage(discovery.status())));
  }
  return discovery;
}

}  // namespace

v1::ClusterProbed ProbeCluster(ClusterConnector& connector, const v1::ClusterState& cluster,
                               const KubeClientOptions& options, Cancellation* cancel) {
  v1::ClusterProbed probed;
  probed.set_spec_version(cluster.spec_version());
  std::string auth_type;
  absl::StatusOr<Discovery> discovery = Probe(connector, cluster, options, &auth_type, cancel);
  probed.set_auth_type(auth_type);
  if (cancel != nullptr && cancel->cancelled()) {
    probed.set_reason(kReasonProbeFailed);
    probed.set_message("cancelled");
    return probed;
  }
  if (!discovery.ok()) {
    probed.set_reason(IsUnsupported(discovery.status()) ? kReasonUnsupported : kReasonProbeFailed);
    probed.set_message(std::string(discovery.status().message()));
    return probed;
  }
  probed.set_reason(kReasonProbeSucceeded);
  probed.set_server_version(discovery->server_version);
  for (std::string& group : discovery->api_groups) probed.add_api_groups(std::move(group));
  return probed;
}

}  // namespace credledger::kubebridge
