// Server::OpenLog, RecordConfiguration, StartProjections and StopLog: the event log of
// `credledger serve`, the projectors that fold it and the buses that append to it
// (docs/design.md, "The event log", "Configuration events" and "Projections").
#include <functional>
#include <memory>
#include <utility>

#include "common/log.h"
#include "common/status_macros.h"
#include "service/server/event_log.h"
#include "service/server/server.h"
#include "service/server/server_components.h"
#include "service/server/service_configuration.h"

namespace credledger::service {

absl::Status Server::OpenLog() {
  // Behind the Lease's fence: no write once the Lease may have passed to another replica.
  std::function<absl::Status()> write_fence;
  if (lease_->fence != nullptr) {
    write_fence = [fence = lease_->fence.get()] { return fence->Check(); };
  }
  store::OpenLogOptions log;
  log.clock = options_.clock;
  log.read_only = options_.log.read_only;
  log.synchronous = options_.log.synchronous;
  log.read_connections = ReadConnections(options_.grpc);
  log.holder = lease_->identity;
  if (log.holder.empty()) {
    ASSIGN_OR_RETURN(log.holder, DefaultLeaseIdentity());
  }
  log.write_fence = std::move(write_fence);
  log.on_stopped = options_.log.on_stopped;
  ASSIGN_OR_RETURN(log_->store, OpenEventLog(options_.log.location(), std::move(log)));
  operations_->writing = !options_.log.read_only;
  return absl::OkStatus();
}

absl::Status Server::RecordConfiguration(const v1::ServiceConfigured& config) {
  if (options_.log.read_only) return absl::OkStatus();
  return RecordServiceConfiguration(*log_->store, config, "credledger").status();
}

absl::Status Server::StartProjections() {
  // Snapshots only with the key that vouches for them, loaded when a trusted key sealed them
  // (docs/audit.md, "Snapshots").
  if (audit_->signing_key.has_value()) {
    log_->snapshot_seal =
        std::make_unique<audit::KeySnapshotSeal>(*audit_->signing_key, audit_->trusted_keys);
    log_->snapshots = std::make_unique<projections::SnapshotGuard>(log_->snapshot_seal.get());
  } else {
    common::Log(common::LogLevel::kWarning,
                "no signing key: projection snapshots are neither written nor loaded; every "
                "start folds the whole log");
  }
  projections::CredentialProjector::Options projector_options;
  projector_options.snapshot_every = options_.log.snapshot_every;
  projector_options.snapshots = log_->snapshots.get();
  ASSIGN_OR_RETURN(log_->projector,
                   projections::CredentialProjector::Start(log_->store.get(), projector_options));
  log_->bus = std::make_unique<TargetCommandBus>(log_->store.get());
  projections::IdentityProjector::Options identity_options;
  identity_options.snapshot_every = options_.log.snapshot_every;
  identity_options.change_history = projections::kIdentityChangeHistory;
  identity_options.snapshots = log_->snapshots.get();
  ASSIGN_OR_RETURN(log_->identity_projector,
                   projections::IdentityProjector::Start(log_->store.get(), identity_options));
  log_->identity_bus = std::make_unique<IdentityCommandBus>(log_->store.get());
  projections::StatusProjector::Options status_options;
  status_options.snapshot_every = options_.log.snapshot_every;
  status_options.snapshots = log_->snapshots.get();
  ASSIGN_OR_RETURN(log_->status_projector,
                   projections::StatusProjector::Start(log_->store.get(), status_options));
  return absl::OkStatus();
}

void Server::StopLog() {
  log_->bus.reset();
  log_->identity_bus.reset();
  log_->identity_projector.reset();
  log_->status_projector.reset();
  log_->projector.reset();
  log_->snapshots.reset();
  log_->snapshot_seal.reset();
  operations_->writing = false;
  if (log_->store != nullptr) log_->store->Close();
  log_->store.reset();
}

}  // namespace credledger::service
