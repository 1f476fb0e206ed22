// The gRPC server interceptor that answers a request gRPC could not parse as its RPC's request
// message (a truncated field, a field number 0, invalid UTF-8 in a string field) with
// INVALID_ARGUMENT "request: the bytes do not parse as the request of <rpc> (...)" (docs/api.md,
// "Bad input"). On the callback API gRPC itself answers such a request UNIMPLEMENTED or
// INTERNAL, without a message, before any handler runs.
//
// Thread-safety: the factory is thread-safe; each call has its own interceptor, whose hooks
// gRPC runs one after another.
#pragma once

#include <memory>

namespace grpc::experimental {
class ServerInterceptorFactoryInterface;
}  // namespace grpc::experimental

namespace credledger::service {

// The factory to register with ServerBuilder::experimental().SetInterceptorCreators, before
// the access log's, so that the access log records the answer the client gets.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
NewUnparsedRequestInterceptorFactory();

}  // namespace credledger::service
