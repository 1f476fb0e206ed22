// Builders of cluster specs, probe outcomes and cluster events shared by the cluster tests
// (the fold, the decider and bus, the API and the CLI).
#pragma once

#include <string>
#include <vector>

#include "credledger/v1/connection.pb.h"
#include "credledger/v1/events.pb.h"

namespace credledger::service {

constexpr char kEdgeServer[] = "https://edge-1.example:6443";

// An inCluster spec (no namespace).
inline v1::ClusterSpec InClusterSpec() {
  v1::ClusterSpec spec;
  spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  return spec;
}

// An agentless spec in namespace "fleet" with token auth from Secret `secret` (key "token"),
// server `server` and CA from ConfigMap edge-1-ca (key "ca.crt"): every key written out, as
// NormalizedClusterSpec leaves it.
inline v1::ClusterSpec TokenSpec(const std::string& secret = "edge-1-token",
                                 const std::string& server = kEdgeServer) {
  v1::ClusterSpec spec;
  spec.set_namespace_("fleet");
  spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
  v1::AgentlessConnection& agentless = *spec.mutable_agentless();
  agentless.set_server(server);
  agentless.mutable_ca_ref()->set_kind("ConfigMap");
  agentless.mutable_ca_ref()->set_name("edge-1-ca");
  agentless.mutable_ca_ref()->set_key("ca.crt");
  agentless.mutable_auth()->set_type("token");
  agentless.mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(secret);
  agentless.mutable_auth()->mutable_token()->mutable_secret_ref()->set_key("token");
  return spec;
}

// An agentless spec in namespace "fleet" with kubeconfig auth from Secret edge-1-kubeconfig
// (no key: the default), no server and no CA.
inline v1::ClusterSpec KubeconfigSpec() {
  v1::ClusterSpec spec;
  spec.set_namespace_("fleet");
  spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
  v1::ClusterAuth& auth = *spec.mutable_agentless()->mutable_auth();
  auth.set_type("kubeconfig");
  auth.mutable_kubeconfig()->mutable_secret_ref()->set_name("edge-1-kubeconfig");
  return spec;
}

// A successful probe of the spec at `spec_version`.
inline v1::ClusterProbed Succeeded(int64_t spec_version, const std::string& version = "v1.29.2",
                                   std::vector<std::string> groups = {"apps", "batch"},
                                   const std::string& auth_type = "token") {
  v1::ClusterProbed probe;
  probe.set_spec_version(spec_version);
  probe.set_reason("ProbeSucceeded");
  probe.set_server_version(version);
  for (std::string& group : groups) probe.add_api_groups(std::move(group));
  probe.set_auth_type(auth_type);
  return probe;
}

// A failed probe (reason "ProbeFailed" or "Unsupported") of the spec at `spec_version`.
inline v1::ClusterProbed Failed(int64_t spec_version, const std::string& reason,
                                const std::string& message,
                                const std::string& auth_type = "token") {
  v1::ClusterProbed probe;
  probe.set_spec_version(spec_version);
  probe.set_reason(reason);
  probe.set_message(message);
  probe.set_auth_type(auth_type);
  return probe;
}

inline v1::Event Registered(const std::string& name, const v1::ClusterSpec& spec) {
  v1::Event e;
  e.mutable_cluster_registered()->set_name(name);
  *e.mutable_cluster_registered()->mutable_spec() = spec;
  return e;
}

inline v1::Event SpecChanged(const v1::ClusterSpec& spec) {
  v1::Event e;
  *e.mutable_cluster_spec_changed()->mutable_spec() = spec;
  return e;
}

inline v1::Event Deregistered() {
  v1::Event e;
  e.mutable_cluster_deregistered();
  return e;
}

inline v1::Event Probed(const v1::ClusterProbed& probe) {
  v1::Event e;
  *e.mutable_cluster_probed() = probe;
  return e;
}

}  // namespace credledger::service
