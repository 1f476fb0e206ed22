// Server::AcquireLease and Server::ReleaseLease: the Lease fence of `credledger serve`
// (docs/operations.md, "The Lease fence"; docs/design.md, "One writer").
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/uuid.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/lease_fence.h"
#include "service/server/server.h"
#include "service/server/server_components.h"
#include "service/server/startup_gates.h"

namespace credledger::service {

absl::StatusOr<std::string> DefaultLeaseIdentity() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "credledger");
  }
  ASSIGN_OR_RETURN(std::string uuid, common::NewUuidV4());
  return absl::StrCat(host, "_", uuid.substr(0, 8));
}

absl::Status Server::AcquireLease() {
  const ServeOptions::Lease& options = options_.lease;
  if (options.name.empty()) return absl::OkStatus();
  // ConnectCluster refused a Lease without a cluster connection: home_connection is set.
  kubebridge::LeaseFenceOptions lease;
  lease.name = options.name;
  lease.namespace_name = options.namespace_name;
  if (lease.namespace_name.empty()) {
    lease.namespace_name = bridge_->kube_client->default_namespace();
  }
  if (lease.namespace_name.empty()) lease.namespace_name = "default";
  lease.identity = options.identity;
  if (lease.identity.empty()) {
    ASSIGN_OR_RETURN(lease.identity, DefaultLeaseIdentity());
  }
  lease.duration = options.duration;
  lease.renew_deadline = options.duration * 2 / 3;
  lease.retry_period = options.duration * 2 / 15;
  lease.clock = options_.clock;
  RETURN_IF_ERROR(kubebridge::ValidateLeaseFenceOptions(lease));

  // Its own client: renewals never wait behind the bridge's rate limit.
  kubebridge::KubeClientOptions client_options;
  client_options.rate_limit = {.qps = 0, .burst = 1};
  client_options.request_timeout = lease.renew_deadline / 2;
  client_options.on_request = operations_->kube_requests;
  ASSIGN_OR_RETURN(lease_->client,
                   kubebridge::KubeClient::New(*bridge_->home_connection, client_options));
  lease_->fence =
      std::make_unique<kubebridge::LeaseFence>(lease_->client.get(), lease, options.on_lost);
  lease_->identity = lease.identity;
  operations_->readiness.AddCheck("lease",
                                  [fence = lease_->fence.get()] { return fence->Check(); });
  common::Log(common::LogLevel::kInfo, "waiting for the lease",
              {{"lease", absl::StrCat(lease.namespace_name, "/", lease.name)},
               {"identity", lease.identity}});
  kubebridge::Cancellation never;
  RETURN_IF_ERROR(
      lease_->fence->Acquire(options.start_cancel != nullptr ? *options.start_cancel : never));
  lease_->fence->Start();
  operations_->readiness.OpenGate(kLeaseGate);
  common::Log(common::LogLevel::kInfo, "holding the lease: this replica is the writer",
              {{"lease", absl::StrCat(lease.namespace_name, "/", lease.name)},
               {"identity", lease.identity}});
  return absl::OkStatus();
}

void Server::ReleaseLease() {
  if (lease_->fence == nullptr) return;
  if (absl::Status released = lease_->fence->Release(); !released.ok()) {
    common::Log(common::LogLevel::kWarning,
                "lease not released; the next replica waits until it expires",
                {{"error", released.ToString()}});
  }
  lease_->client->Stop();
}

}  // namespace credledger::service
