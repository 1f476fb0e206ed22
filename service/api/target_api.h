// TargetApi: the TargetService RPCs (proto/credledger/v1/api.proto) without gRPC: input
// validation, command execution through the TargetCommandBus, and reads from the
// CredentialProjector (docs/api.md, "RPCs and subcommands"). The gRPC adapter
// (target_grpc_service.h) only extracts the actor and maps statuses.
//
// Every mutating call validates namespace and name (DNS-1123 labels), the request id
// (printable ASCII, at most 128 bytes), the actor and its own fields before anything is
// appended; generates the Target uid when the client gave none (random RFC 4122 version 4,
// here at the edge, never in a decider); runs the command with the time from the injected
// clock and the service configuration the projector holds; then waits (bounded) until the
// projector has folded the command's events, so that a read after the call reflects it.
//
// Errors of every mutating call: kInvalidArgument naming the field and rule (namespace,
// name, request_id, credledger-actor, and the RPC's own fields); the decider's kNotFound /
// kFailedPrecondition / kInvalidArgument; kFailedPrecondition when the request id was
// already used for another Target; kUnavailable when the log cannot be written. A failed
// call appends nothing.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/api.pb.h"
#include "projections/credential_projector.h"
#include "service/api/target_scope.h"
#include "service/api/target_watch.h"
#include "service/bus/prior_request.h"
#include "service/bus/target_command_bus.h"
#include "service/decide/validation.h"

namespace credledger::service {

class TargetApi {
 public:
  struct Options {
    // How long a mutating call waits for the projector to fold its events before it answers
    // with the state the command computed.
    absl::Duration read_your_writes_timeout = absl::Seconds(5);
    // Live changes one watch may hold for a slow client (TargetWatch::Options::queue_limit).
    size_t watch_queue_limit = 1024;
    // Bytes of live changes one watch may hold (TargetWatch::Options::queue_bytes_limit).
    size_t watch_queue_bytes = size_t{4} << 20;
  };

  // `bus`, `projector` and `clock` are not owned and must outlive the api.
  TargetApi(TargetCommandBus* bus, projections::CredentialProjector* projector,
            common::Clock* clock, Options options);

  // Mutating RPCs; `actor` is the caller's declared identity (empty means anonymous).
  // Errors: see the file comment; per-RPC rules in api.proto.
  absl::StatusOr<v1::RegisterTargetResponse> RegisterTarget(
      const v1::RegisterTargetRequest& request, absl::string_view actor);
  absl::StatusOr<v1::DeleteTargetResponse> DeleteTarget(const v1::DeleteTargetRequest& request,
                                                        absl::string_view actor);
  absl::StatusOr<v1::RequestRotationResponse> RequestRotation(
      const v1::RequestRotationRequest& request, absl::string_view actor);
  absl::StatusOr<v1::RevokeResponse> Revoke(const v1::RevokeRequest& request,
                                            absl::string_view actor);
  absl::StatusOr<v1::LiftRevocationResponse> LiftRevocation(
      const v1::LiftRevocationRequest& request, absl::string_view actor);
  absl::StatusOr<v1::ConfirmRolloutResponse> ConfirmRollout(
      const v1::ConfirmRolloutRequest& request, absl::string_view actor);

  // Reads from the projector. Errors: kInvalidArgument (namespace, name); kNotFound for a
  // Target that was never registered (GetTarget). ListTargets leaves out the Targets outside
  // `scope` (docs/api.md, "Target scopes").
  absl::StatusOr<v1::GetTargetResponse> GetTarget(const v1::GetTargetRequest& request) const;
  absl::StatusOr<v1::ListTargetsResponse> ListTargets(const v1::ListTargetsRequest& request,
                                                      const TargetScope& scope) const;

  // Starts a watch over the Targets in `scope`. Errors: kInvalidArgument (namespace, negative
  // after_seq); kResourceExhausted when the changes after after_seq are no longer kept.
  // `wake` as ProjectorWatch::Start's (projector_watch.h).
  absl::StatusOr<std::unique_ptr<TargetWatch>> WatchTargets(const v1::WatchTargetsRequest& request,
                                                            const TargetScope& scope,
                                                            std::function<void()> wake) const;

 private:
  // What a mutating call answers, before it is copied into the RPC's response.
  struct Outcome {
    v1::Target target;
    bool replayed = false;
    int64_t seq = 0;
    CommandResult result;
  };

  absl::StatusOr<Outcome> Run(const TargetCommand& command, absl::string_view target_namespace,
                              absl::string_view name, const RequestKey& request,
                              absl::string_view actor);
  template <typename Response>
  static Response Answer(Outcome outcome);

  TargetCommandBus* const bus_;
  projections::CredentialProjector* const projector_;
  common::Clock* const clock_;
  const Options options_;
};

}  // namespace credledger::service
