// The one-to-one mapping between absl::Status and grpc::Status: status codes map one to one
// (docs/api.md, "Errors"). Both use the canonical codes 0-16 with the same meaning; messages
// are kept verbatim.
//
// Pure functions; thread-safe.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace credledger::service {

// The gRPC status with the same canonical code and message. A code outside 0-16 (none is
// produced by credledger) becomes UNKNOWN.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The absl status with the same canonical code and message (used by clients).
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace credledger::service
