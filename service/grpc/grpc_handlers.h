// Plumbing shared by the gRPC services (TargetGrpcService, ReportGrpcService, ...) on gRPC's
// callback API (docs/api.md, "Threads and streams", "Errors" and "Caller identity"): every
// call is authorized on the gRPC thread that received it (memory only; a bearer token that
// is not in the TokenAuthenticator's cache is first reviewed on the remote pool), then
//   - a read of projected state answers on that thread (ServeUnary with no pool);
//   - work that reads or writes the log, or waits on a cluster or a remote, runs on one of the
//     service's WorkPools (ServeUnary with a pool), refused with RESOURCE_EXHAUSTED when that
//     pool's queue is full;
//   - a server stream becomes a StreamReactor (stream_reactor.h) admitted by OpenStreams.
//
// The `call` and `open` functions run after the handler has returned: they capture what they
// use by value (the request and response pointers stay valid until the call is finished).
//
// Thread-safety: stateless functions.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/work_pool.h"
#include "service/grpc/auth/call_authorizer.h"
#include "service/grpc/open_streams.h"
#include "service/grpc/stream_reactor.h"
#include "service/wire/grpc_status.h"

namespace credledger::service {

// What every service's handlers use; nothing owned, all must outlive the services.
struct CallEnvironment {
  const CallAuthorizer* authorizer = nullptr;
  common::WorkPool* log_work = nullptr;     // commands, audit reads, stream steps
  common::WorkPool* remote_work = nullptr;  // calls that wait on a cluster or a remote
  OpenStreams* streams = nullptr;
};

// Which Target scope check a call passes after the RPC check (docs/api.md, "Target scopes"):
// none (lists and watches filter instead), CallAuthorizer::CheckTarget (the call addresses
// the Target request.namespace_()/name()), or CallAuthorizer::CheckOneTarget (an audit call
// about one Target or many; a request without those fields counts as naming none).
enum class TargetCheck { kNone, kTarget, kOneTarget };

// The RPC check of the caller `evidence` names, then `check`'s scope check for `request`.
// Errors: as CallAuthorizer::Authorize, CheckTarget and CheckOneTarget.
template <TargetCheck check, typename Request>
absl::StatusOr<AuthorizedCaller> AuthorizeCall(const CallerEvidence& evidence,
                                               const CallAuthorizer& authorizer,
                                               absl::string_view service, absl::string_view method,
                                               const Request& request) {
  absl::StatusOr<AuthorizedCaller> caller = authorizer.Authorize(evidence, service, method);
  if (!caller.ok() || check == TargetCheck::kNone) return caller;
  absl::string_view target_namespace;
  absl::string_view name;
  if constexpr (requires {
                  request.namespace_();
                  request.name();
                }) {
    target_namespace = request.namespace_();
    name = request.name();
  }
  const absl::Status in_scope =
      check == TargetCheck::kTarget
          ? authorizer.CheckTarget(*caller, service, method, target_namespace, name)
          : authorizer.CheckOneTarget(*caller, service, method, target_namespace, name);
  if (!in_scope.ok()) return in_scope;
  return caller;
}

// Runs `serve(evidence)` with the CallerEvidence of `context`: at once, or on env.remote_work
// after the review of a bearer token that is not cached. False when the remote pool's queue
// is full (nothing ran).
template <typename Serve>
bool WithEvidence(const grpc::CallbackServerContext& context, const CallEnvironment& env,
                  Serve serve) {
  CallerEvidence evidence = env.authorizer->Evidence(context);
  if (!env.authorizer->NeedsTokenReview(evidence)) {
    serve(evidence);
    return true;
  }
  return env.remote_work->TrySchedule([authorizer = env.authorizer, serve = std::move(serve),
                                       evidence = std::move(evidence)]() mutable {
    authorizer->ReviewToken(evidence);
    serve(evidence);
  });
}

// The kResourceExhausted of a call that found `pool`'s queue full.
inline absl::Status Busy(absl::string_view service, absl::string_view method,
                         const common::WorkPool& pool) {
  return absl::ResourceExhaustedError(absl::StrCat(service, "/", method, ": the server is busy (",
                                                   pool.max_queued(),
                                                   " calls are waiting); try again later"));
}

// A unary call: AuthorizeCall, then `call(caller)` (returning absl::StatusOr<Response>) on
// `pool`, or on this thread when `pool` is null; the call finishes with its answer mapped by
// ToGrpcStatus.
template <TargetCheck check = TargetCheck::kNone, typename Request, typename Response,
          typename Call>
grpc::ServerUnaryReactor* ServeUnary(grpc::CallbackServerContext* context,
                                     const CallEnvironment& env, common::WorkPool* pool,
                                     absl::string_view service, absl::string_view method,
                                     const Request* request, Response* response, Call call) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  auto serve = [reactor, env, pool, service, method, request, response,
                call = std::move(call)](const CallerEvidence& evidence) {
    absl::StatusOr<AuthorizedCaller> caller =
        AuthorizeCall<check>(evidence, *env.authorizer, service, method, *request);
    if (!caller.ok()) {
      reactor->Finish(ToGrpcStatus(caller.status()));
      return;
    }
    auto answer = [reactor, response, call, caller = *std::move(caller)] {
      absl::StatusOr<Response> result = call(caller);
      if (!result.ok()) {
        reactor->Finish(ToGrpcStatus(result.status()));
        return;
      }
      *response = *std::move(result);
      reactor->Finish(grpc::Status::OK);
    };
    if (pool == nullptr) {
      answer();
    } else if (!pool->TrySchedule(std::move(answer))) {
      reactor->Finish(ToGrpcStatus(Busy(service, method, *pool)));
    }
  };
  if (!WithEvidence(*context, env, std::move(serve))) {
    reactor->Finish(ToGrpcStatus(Busy(service, method, *env.remote_work)));
  }
  return reactor;
}

// A server stream: AuthorizeCall, admission by env.streams under the caller's recorded actor,
// then on env.log_work `open(caller, wake)` (returning
// absl::StatusOr<std::unique_ptr<StreamSource<Response>>>; `wake` is the function a watch
// calls when it has something) and the StreamReactor writes what the source produces.
template <TargetCheck check = TargetCheck::kNone, typename Request, typename Response,
          typename Open>
grpc::ServerWriteReactor<Response>* ServeStream(grpc::CallbackServerContext* context,
                                                const CallEnvironment& env,
                                                absl::string_view service, absl::string_view method,
                                                const Request* request, Open open) {
  auto* reactor = new StreamReactor<Response>(env.log_work);
  auto serve = [reactor, env, service, method, request,
                open = std::move(open)](const CallerEvidence& evidence) {
    absl::StatusOr<AuthorizedCaller> caller =
        AuthorizeCall<check>(evidence, *env.authorizer, service, method, *request);
    if (!caller.ok()) {
      reactor->Stop(caller.status());
      return;
    }
    absl::StatusOr<std::unique_ptr<OpenStreams::Ticket>> ticket =
        env.streams->Admit(caller->actor, method, reactor);
    if (!ticket.ok()) {
      reactor->Stop(ticket.status());
      return;
    }
    reactor->Keep(*std::move(ticket));
    reactor->Ref();  // for the opening step
    const bool queued = env.log_work->TrySchedule([reactor, open, caller = *std::move(caller)] {
      absl::StatusOr<std::unique_ptr<StreamSource<Response>>> source =
          open(caller, [reactor] { reactor->Wake(); });
      if (source.ok()) {
        reactor->Begin(*std::move(source));
      } else {
        reactor->Stop(source.status());
      }
      reactor->Unref();
    });
    if (!queued) {
      reactor->Stop(Busy(service, method, *env.log_work));
      reactor->Unref();
    }
  };
  if (!WithEvidence(*context, env, std::move(serve))) {
    reactor->Stop(Busy(service, method, *env.remote_work));
  }
  return reactor;
}

// A watch (TargetWatch, FleetWatch: ProjectorWatch) as a StreamSource.
template <typename Watch, typename Response>
class WatchSource final : public StreamSource<Response> {
 public:
  explicit WatchSource(std::unique_ptr<Watch> watch) : watch_(std::move(watch)) {}
  absl::StatusOr<std::optional<Response>> Next() override { return watch_->Poll(); }
  bool ends_when_empty() const override { return false; }
  bool reads_log() const override { return false; }

 private:
  std::unique_ptr<Watch> watch_;
};

// `watch` (absl::StatusOr<std::unique_ptr<Watch>>) as the result of a ServeStream `open`.
template <typename Response, typename Watch>
absl::StatusOr<std::unique_ptr<StreamSource<Response>>> AsSource(
    absl::StatusOr<std::unique_ptr<Watch>> watch) {
  if (!watch.ok()) return watch.status();
  return std::unique_ptr<StreamSource<Response>>(
      new WatchSource<Watch, Response>(*std::move(watch)));
}

}  // namespace credledger::service
