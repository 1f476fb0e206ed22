#include "cli/cluster_printer.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/target_printer.h"
#include "cli/text_fields.h"
#include "kubebridge/model/cluster_auth_names.h"
#include "service/offline/cluster_view.h"

namespace credledger::cli {
namespace {

// Width of the labels of LabeledLine.
constexpr int kClusterLabelWidth = 15;

std::string PhaseName(v1::ClusterState::Phase phase) {
  switch (phase) {
    case v1::ClusterState::PHASE_ACTIVE:
      return "active";
    case v1::ClusterState::PHASE_DEREGISTERED:
      return "deregistered";
    default:
      return "unknown";
  }
}

// "key <key>", or the reference's default when no key is given.
std::string KeyText(absl::string_view key, absl::string_view default_key) {
  return key.empty() ? absl::StrCat("key ", default_key, " (default)") : absl::StrCat("key ", key);
}

std::string SecretKeyText(const v1::SecretKeyRef& ref, absl::string_view default_key) {
  return absl::StrCat("Secret ", ref.name(), ", ", KeyText(ref.key(), default_key));
}

std::string ObjectKeyText(const v1::ObjectKeyRef& ref, absl::string_view default_key) {
  return absl::StrCat(ref.kind(), " ", ref.name(), ", ", KeyText(ref.key(), default_key));
}

// What the selected auth type's block names; "no <type> block" when it is unset.
std::string AuthBlockText(const v1::ClusterAuth& auth) {
  const std::string& type = auth.type();
  if (type == kubebridge::kAuthKubeconfig && auth.has_kubeconfig()) {
    return SecretKeyText(auth.kubeconfig().secret_ref(), kubebridge::kKubeconfigDefaultKey);
  }
  if (type == kubebridge::kAuthToken && auth.has_token()) {
    return SecretKeyText(auth.token().secret_ref(), kubebridge::kTokenDefaultKey);
  }
  if (type == kubebridge::kAuthClientCert && auth.has_client_cert()) {
    return absl::StrCat("Secret ", auth.client_cert().secret_name(), ", keys ",
                        kubebridge::kTlsCertKey, " and ", kubebridge::kTlsKeyKey);
  }
  if (type == kubebridge::kAuthExecPlugin && auth.has_exec_plugin()) {
    const v1::ExecPluginAuth& exec = auth.exec_plugin();
    return absl::StrCat("provider ", exec.url(), ", CA ",
                        exec.has_ca_ref() ? ObjectKeyText(exec.ca_ref(), kubebridge::kCaDefaultKey)
                                          : "system trust store",
                        ", token ",
                        exec.has_token_ref()
                            ? SecretKeyText(exec.token_ref(), kubebridge::kTokenDefaultKey)
                            : "none");
  }
  return absl::StrCat("no ", type, " block");
}

std::string ConditionText(const v1::Condition& c) {
  return absl::StrCat(OrDash(c.status()), "/", OrDash(c.reason()), " (since ",
                      FormatTimestamp(c.last_transition_time(), c.has_last_transition_time()), ")");
}

bool IsDeregistered(const v1::ClusterState& cluster) {
  return cluster.phase() == v1::ClusterState::PHASE_DEREGISTERED;
}

// The Reachable condition of `cluster`; for a deregistered cluster, which is no longer
// probed, marked as the outcome of the last probe before its deregistration.
std::string ReachableText(const v1::ClusterState& cluster) {
  if (!IsDeregistered(cluster)) return ConditionText(cluster.reachable());
  return absl::StrCat("not probed (deregistered); last probe before: ",
                      ConditionText(cluster.reachable()));
}

// The server and CA lines of an agentless spec: kubeconfig auth takes both from the
// kubeconfig, whatever the spec's own fields say.
std::string ServerAndCaText(const v1::AgentlessConnection& agentless) {
  constexpr char kFromKubeconfig[] = "from the kubeconfig";
  if (agentless.auth().type() == kubebridge::kAuthKubeconfig) {
    return absl::StrCat(LabeledLine("server", kFromKubeconfig, kClusterLabelWidth),
                        LabeledLine("ca", kFromKubeconfig, kClusterLabelWidth));
  }
  return absl::StrCat(LabeledLine("server", OrDash(agentless.server()), kClusterLabelWidth),
                      LabeledLine("ca",
                                  agentless.has_ca_ref()
                                      ? ObjectKeyText(agentless.ca_ref(), kubebridge::kCaDefaultKey)
                                      : "system trust store",
                                  kClusterLabelWidth));
}

}  // namespace

std::string ConnectionModeName(v1::ClusterConnectionMode mode) {
  switch (mode) {
    case v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER:
      return "inCluster";
    case v1::CLUSTER_CONNECTION_MODE_AGENTLESS:
      return "agentless";
    default:
      return "unspecified";
  }
}

std::string FormatClusterAuth(const v1::ClusterSpec& spec) {
  if (spec.connection_mode() != v1::CLUSTER_CONNECTION_MODE_AGENTLESS) {
    return ConnectionModeName(spec.connection_mode());
  }
  const v1::ClusterAuth& auth = spec.agentless().auth();
  return absl::StrCat("agentless, auth ", auth.type(), ": ", AuthBlockText(auth));
}

std::string FormatClusterText(const v1::ClusterView& view) {
  const v1::ClusterState& cluster = view.cluster();
  const v1::ClusterSpec& spec = cluster.spec();
  std::string out =
      absl::StrCat("cluster ", cluster.name(), " (", PhaseName(cluster.phase()), ")\n");
  absl::StrAppend(&out, LabeledLine("connection", FormatClusterAuth(spec), kClusterLabelWidth),
                  LabeledLine("namespace", OrDash(spec.namespace_()), kClusterLabelWidth));
  if (spec.connection_mode() == v1::CLUSTER_CONNECTION_MODE_AGENTLESS) {
    absl::StrAppend(&out, ServerAndCaText(spec.agentless()));
  }
  const v1::Condition& reachable = cluster.reachable();
  absl::StrAppend(
      &out, LabeledLine("reachable", ReachableText(cluster), kClusterLabelWidth),
      LabeledLine("message", OrDash(reachable.message()), kClusterLabelWidth),
      LabeledLine("server version", OrDash(cluster.server_version()), kClusterLabelWidth),
      LabeledLine("api groups", absl::StrCat(cluster.api_groups_size()), kClusterLabelWidth),
      LabeledLine("probe auth", OrDash(cluster.auth_type()), kClusterLabelWidth),
      LabeledLine("last probe", FormatTimestamp(view.last_probe_time(), view.has_last_probe_time()),
                  kClusterLabelWidth),
      LabeledLine("registered",
                  FormatTimestamp(cluster.registered_at(), cluster.has_registered_at()),
                  kClusterLabelWidth),
      LabeledLine("updated", FormatTimestamp(cluster.updated_at(), cluster.has_updated_at()),
                  kClusterLabelWidth),
      LabeledLine("seq", absl::StrCat(cluster.seq()), kClusterLabelWidth));
  return out;
}

std::string FormatClusterChangeText(absl::string_view verb,
                                    const v1::ClusterChangeResponse& response) {
  std::string summary = absl::StrCat(verb, " cluster ", response.cluster().name());
  if (response.replayed()) {
    absl::StrAppend(&summary, ": request already answered, nothing appended (seq ", response.seq(),
                    ")");
  } else if (response.seq() == 0) {
    absl::StrAppend(&summary, ": already in that state, nothing appended");
  } else {
    absl::StrAppend(&summary, " (seq ", response.seq(), ")");
  }
  return absl::StrCat(summary, "\n",
                      FormatClusterText(service::ToClusterView(response.cluster(), std::nullopt)));
}

std::string FormatClusterTable(const google::protobuf::RepeatedPtrField<v1::ClusterView>& views) {
  std::vector<std::vector<std::string>> rows = {
      {"CLUSTER", "PHASE", "MODE", "AUTH", "REACHABLE", "VERSION", "GROUPS", "LAST PROBE"}};
  for (const v1::ClusterView& view : views) {
    const v1::ClusterState& cluster = view.cluster();
    const v1::ClusterSpec& spec = cluster.spec();
    const v1::Condition& reachable = cluster.reachable();
    rows.push_back(
        {cluster.name(), PhaseName(cluster.phase()), ConnectionModeName(spec.connection_mode()),
         spec.connection_mode() == v1::CLUSTER_CONNECTION_MODE_AGENTLESS
             ? OrDash(spec.agentless().auth().type())
             : "-",
         IsDeregistered(cluster)
             ? "-"
             : absl::StrCat(OrDash(reachable.status()), "/", OrDash(reachable.reason())),
         OrDash(cluster.server_version()), absl::StrCat(cluster.api_groups_size()),
         FormatTimestamp(view.last_probe_time(), view.has_last_probe_time())});
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const std::vector<std::string>& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const std::vector<std::string>& row : rows) {
    for (size_t i = 0; i + 1 < row.size(); ++i) {
      absl::StrAppend(&out, row[i], std::string(widths[i] - row[i].size() + 2, ' '));
    }
    absl::StrAppend(&out, row.back(), "\n");
  }
  return out;
}

}  // namespace credledger::cli
