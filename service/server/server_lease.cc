// Server: the home cluster connection and the Lease fence (docs/operations.md,
// "The Lease fence"; docs/design.md, "One writer"; server.h).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/uuid.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/client/kubeconfig.h"
#include "service/server/server.h"
#include "service/server/startup_gates.h"

namespace credledger::service {
namespace {

// "<hostname>_<8 random hex digits>": unique per process even when pods share a name.
absl::StatusOr<std::string> DefaultLeaseIdentity() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "credledger");
  }
  ASSIGN_OR_RETURN(std::string uuid, common::NewUuidV4());
  return absl::StrCat(host, "_", uuid.substr(0, 8));
}

}  // namespace

absl::Status Server::ConnectCluster(const v1::ServiceConfigured& config) {
  absl::StatusOr<kubebridge::ConnectionConfig> connection;
  kubebridge::InClusterEnvironment in_cluster = kubebridge::InClusterEnvironment::FromProcess();
  if (!options_.kubeconfig.empty()) {
    connection = kubebridge::LoadKubeconfig(options_.kubeconfig);
  } else if (!in_cluster.service_host.empty()) {
    connection = kubebridge::LoadInClusterConfig(in_cluster);
  } else {
    // A Lease fences the writer in a cluster: refused here, before the start logs that it
    // serves without one.
    if (!options_.lease_name.empty()) {
      return absl::InvalidArgumentError(
          "--lease-name: the Lease needs a cluster connection (--kubeconfig, KUBECONFIG or "
          "in-cluster)");
    }
    // Commands are still decided and recorded; mint intents wait in the log until credledger
    // runs with a cluster connection.
    common::Log(config.credentials_enabled() ? common::LogLevel::kWarning : common::LogLevel::kInfo,
                "no cluster connection (--kubeconfig, KUBECONFIG or in-cluster): serving the "
                "API without the kube bridge; no Kubernetes object will be written");
    return absl::OkStatus();
  }
  if (!connection.ok()) return connection.status();
  kubebridge::KubeClientOptions client_options;
  client_options.rate_limit = {options_.kube_qps, options_.kube_burst};
  client_options.on_request = kube_requests_;
  ASSIGN_OR_RETURN(kube_client_, kubebridge::KubeClient::New(*connection, client_options));
  common::Log(common::LogLevel::kInfo, "kube bridge connected",
              {{"cluster", connection->DebugString()}});
  home_connection_ = *std::move(connection);
  return absl::OkStatus();
}

absl::Status Server::AcquireLease() {
  if (options_.lease_name.empty()) return absl::OkStatus();
  // ConnectCluster refused a Lease without a cluster connection: home_connection_ is set.
  kubebridge::LeaseFenceOptions lease;
  lease.name = options_.lease_name;
  lease.namespace_name = options_.lease_namespace;
  if (lease.namespace_name.empty()) lease.namespace_name = kube_client_->default_namespace();
  if (lease.namespace_name.empty()) lease.namespace_name = "default";
  lease.identity = options_.lease_identity;
  if (lease.identity.empty()) {
    ASSIGN_OR_RETURN(lease.identity, DefaultLeaseIdentity());
  }
  lease.duration = options_.lease_duration;
  lease.renew_deadline = options_.lease_duration * 2 / 3;
  lease.retry_period = options_.lease_duration * 2 / 15;
  lease.clock = options_.clock;
  RETURN_IF_ERROR(kubebridge::ValidateLeaseFenceOptions(lease));

  // Its own client: renewals never wait behind the bridge's rate limit.
  kubebridge::KubeClientOptions client_options;
  client_options.rate_limit = {.qps = 0, .burst = 1};
  client_options.request_timeout = lease.renew_deadline / 2;
  client_options.on_request = kube_requests_;
  ASSIGN_OR_RETURN(lease_client_, kubebridge::KubeClient::New(*home_connection_, client_options));
  lease_ =
      std::make_unique<kubebridge::LeaseFence>(lease_client_.get(), lease, options_.on_lease_lost);
  readiness_.AddCheck("lease", [fence = lease_.get()] { return fence->Check(); });
  common::Log(common::LogLevel::kInfo, "waiting for the lease",
              {{"lease", absl::StrCat(lease.namespace_name, "/", lease.name)},
               {"identity", lease.identity}});
  kubebridge::Cancellation never;
  RETURN_IF_ERROR(
      lease_->Acquire(options_.start_cancel != nullptr ? *options_.start_cancel : never));
  lease_->Start();
  readiness_.OpenGate(kLeaseGate);
  common::Log(common::LogLevel::kInfo, "holding the lease: this replica is the writer",
              {{"lease", absl::StrCat(lease.namespace_name, "/", lease.name)},
               {"identity", lease.identity}});
  return absl::OkStatus();
}

void Server::ReleaseLease() {
  if (lease_ == nullptr) return;
  if (absl::Status released = lease_->Release(); !released.ok()) {
    common::Log(common::LogLevel::kWarning,
                "lease not released; the next replica waits until it expires",
                {{"error", released.ToString()}});
  }
  lease_client_->Stop();
}

}  // namespace credledger::service
