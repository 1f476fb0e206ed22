// The gRPC server interceptor that writes the access log (access_log.h) and hands out call
// request ids (request_id.h) for every call of every service the server hosts, health
// checking and reflection included (docs/operations.md, "Access log"; docs/api.md,
// "Call request ids").
//
// Per call it
//   - takes the client's `x-request-id` when valid, else generates one, and sends it back in
//     the initial and the trailing metadata (a failed call may answer with trailers only);
//   - establishes the caller as CallAuthorizer does (caller_identity.h), when the call ends
//     (a bearer token is reviewed by then): ResolveCaller's identity, else the client
//     certificate's (CertifiedCaller), else "anonymous";
//   - for an RPC of package credledger.v1 whose request has a string field `request_id`
//     (the idempotency key of a mutating RPC), reads it from the first request message;
//   - writes one line (LogCall) when the status is sent, after the handler has returned;
//     a refused call (IsRefusal) only when it is its peer address's first in the interval
//     of `refusals`, which counts the others (docs/operations.md, "Repeated lines");
//   - notes a request gRPC could not parse (it then answers INTERNAL), logged at warning.
//
// Thread-safety: the factory is thread-safe; each call has its own interceptor, whose hooks
// gRPC runs one after another.
#pragma once

#include <memory>

namespace grpc::experimental {
class ServerInterceptorFactoryInterface;
}  // namespace grpc::experimental

namespace credledger::common {
class RepeatLog;
}  // namespace credledger::common

namespace credledger::service {

class CallAuthorizer;

// The factory to register with ServerBuilder::experimental().SetInterceptorCreators.
// REQUIRES: the services of package credledger.v1 are the generated (typed, not raw)
// services of api.proto: their received messages are read as those request types.
// `refusals` (not owned; must outlive the server) counts refused calls; null: every refused
// call is written in full. `authorizer` (not owned; must outlive the server) gives each
// call's CallerEvidence.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewAccessLogInterceptorFactory(common::RepeatLog* refusals, const CallAuthorizer* authorizer);

}  // namespace credledger::service
