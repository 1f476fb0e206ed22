// The start-up gates of `credledger serve`'s readiness (docs/operations.md,
// "Metrics and health"): Server::StartOperations adds them closed, and Server::Wire opens each
// once its stage is done, in this order.
#pragma once

namespace credledger::service {

// The Lease is held (only with --lease-name); its fence check follows as "lease" too.
inline constexpr char kLeaseGate[] = "lease";
// The event log is open, its tail verified and the service configuration recorded.
inline constexpr char kLogGate[] = "log";
// Every projection has caught up with the head of the log as it was at start.
inline constexpr char kProjectionsGate[] = "projections";
// The gRPC API is serving.
inline constexpr char kGrpcGate[] = "grpc";

}  // namespace credledger::service
