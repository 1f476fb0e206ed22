#include "service/wire/grpc_status.h"

#include <string>

namespace credledger::service {
namespace {

// Both enums number the canonical codes OK (0) through UNAUTHENTICATED (16).
constexpr int kLastCanonicalCode = 16;
static_assert(static_cast<int>(absl::StatusCode::kUnauthenticated) == kLastCanonicalCode);
static_assert(static_cast<int>(grpc::StatusCode::UNAUTHENTICATED) == kLastCanonicalCode);
static_assert(static_cast<int>(absl::StatusCode::kResourceExhausted) ==
              static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const int code = static_cast<int>(status.code());
  if (code < 0 || code > kLastCanonicalCode) {
    return grpc::Status(grpc::StatusCode::UNKNOWN, std::string(status.message()));
  }
  return grpc::Status(static_cast<grpc::StatusCode>(code), std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const int code = static_cast<int>(status.error_code());
  if (code < 0 || code > kLastCanonicalCode) {
    return absl::UnknownError(status.error_message());
  }
  return absl::Status(static_cast<absl::StatusCode>(code), status.error_message());
}

}  // namespace credledger::service
