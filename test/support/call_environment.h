// TestCallEnvironment: what a gRPC service under test needs besides its API object
// (service/grpc/grpc_handlers.h, CallEnvironment): the authorizer given, two small WorkPools
// and OpenStreams with the given limits. Declare it before the service and the grpc::Server,
// so that the server stops before the pools do.
#pragma once

#include "common/work_pool.h"
#include "service/grpc/auth/call_authorizer.h"
#include "service/grpc/grpc_handlers.h"
#include "service/grpc/open_streams.h"

namespace credledger::service {

class TestCallEnvironment {
 public:
  // `authorizer` is not owned and must outlive this object.
  explicit TestCallEnvironment(const CallAuthorizer* authorizer,
                               OpenStreams::Limits limits = OpenStreams::Limits{})
      : authorizer_(authorizer), streams_(limits) {}

  CallEnvironment env() {
    return CallEnvironment{.authorizer = authorizer_,
                           .log_work = &log_work_,
                           .remote_work = &remote_work_,
                           .streams = &streams_};
  }
  OpenStreams& streams() { return streams_; }

 private:
  const CallAuthorizer* const authorizer_;
  common::WorkPool log_work_{{.threads = 4, .max_queued = 256}};
  common::WorkPool remote_work_{{.threads = 2, .max_queued = 64}};
  OpenStreams streams_;
};

}  // namespace credledger::service
