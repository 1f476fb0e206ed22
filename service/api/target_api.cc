#include "service/api/target_api.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/uuid.h"
#include "service/decide/validation.h"
#include "service/offline/target_view.h"
#include "store/event_codec.h"

namespace credledger::service {

namespace {

std::string TargetName(absl::string_view target_namespace, absl::string_view name) {
  return absl::StrCat("target \"", target_namespace, "/", name, "\"");
}

}  // namespace

TargetApi::TargetApi(TargetCommandBus* bus, projections::CredentialProjector* projector,
                     common::Clock* clock, Options options)
    : bus_(bus), projector_(projector), clock_(clock), options_(options) {}

absl::StatusOr<TargetApi::Outcome> TargetApi::Run(const TargetCommand& command,
                                                  absl::string_view target_namespace,
                                                  absl::string_view name, const RequestKey& request,
                                                  absl::string_view actor) {
  CommandContext context;
  context.target_namespace = std::string(target_namespace);
  context.target_name = std::string(name);
  context.request_id = request.id;
  context.request_digest = request.digest;
  ASSIGN_OR_RETURN(context.actor, ResolveActor(actor));
  context.now = clock_->Now();
  context.service = projector_->service();

  Outcome outcome;
  ASSIGN_OR_RETURN(outcome.result, bus_->Execute(command, context));
  outcome.replayed = outcome.result.replayed;
  if (!outcome.result.events.empty()) outcome.seq = outcome.result.events.back().seq;

  // Read your writes: answer from the projector once it has folded the command's events;
  // past the timeout, from the state the command itself computed.
  const int64_t wait_for = std::max(outcome.seq, outcome.result.state.last_seq());
  std::optional<v1::TargetState> state;
  if (projector_->WaitForSeq(wait_for, options_.read_your_writes_timeout)) {
    state = projector_->Get(target_namespace, name);
  }
  if (!state.has_value() || state->last_seq() < wait_for) state = outcome.result.state;
  outcome.target = ToTargetView(*state, context.service.connection_hash());
  return outcome;
}

template <typename Response>
Response TargetApi::Answer(Outcome outcome) {
  Response response;
  *response.mutable_target() = std::move(outcome.target);
  response.set_replayed(outcome.replayed);
  response.set_seq(outcome.seq);
  return response;
}

absl::StatusOr<v1::RegisterTargetResponse> TargetApi::RegisterTarget(
    const v1::RegisterTargetRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  service::RegisterTarget command;
  command.uid_given = !request.uid().empty();
  if (command.uid_given) {
    RETURN_IF_ERROR(ValidateUid("uid", request.uid()));
    command.target_uid = request.uid();
  } else {
    ASSIGN_OR_RETURN(command.target_uid, common::NewUuidV4());
  }
  ASSIGN_OR_RETURN(Outcome outcome,
                   Run(command, request.namespace_(), request.name(), KeyOf(request), actor));
  return Answer<v1::RegisterTargetResponse>(std::move(outcome));
}

absl::StatusOr<v1::DeleteTargetResponse> TargetApi::DeleteTarget(
    const v1::DeleteTargetRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  ASSIGN_OR_RETURN(Outcome outcome, Run(service::DeleteTarget{}, request.namespace_(),
                                        request.name(), KeyOf(request), actor));
  return Answer<v1::DeleteTargetResponse>(std::move(outcome));
}

absl::StatusOr<v1::RequestRotationResponse> TargetApi::RequestRotation(
    const v1::RequestRotationRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  // The value defaults to the request id: one rotation per request.
  service::RequestRotation command{request.value().empty() ? request.request_id()
                                                           : request.value()};
  ASSIGN_OR_RETURN(Outcome outcome,
                   Run(command, request.namespace_(), request.name(), KeyOf(request), actor));
  return Answer<v1::RequestRotationResponse>(std::move(outcome));
}

absl::StatusOr<v1::RevokeResponse> TargetApi::Revoke(const v1::RevokeRequest& request,
                                                     absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  if (request.reason().size() > kMaxReasonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reason: ", request.reason().size(), " bytes; at most ", kMaxReasonBytes, " allowed"));
  }
  ASSIGN_OR_RETURN(Outcome outcome, Run(service::Revoke{request.reason()}, request.namespace_(),
                                        request.name(), KeyOf(request), actor));
  return Answer<v1::RevokeResponse>(std::move(outcome));
}

absl::StatusOr<v1::LiftRevocationResponse> TargetApi::LiftRevocation(
    const v1::LiftRevocationRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  ASSIGN_OR_RETURN(Outcome outcome, Run(service::LiftRevocation{}, request.namespace_(),
                                        request.name(), KeyOf(request), actor));
  return Answer<v1::LiftRevocationResponse>(std::move(outcome));
}

absl::StatusOr<v1::ConfirmRolloutResponse> TargetApi::ConfirmRollout(
    const v1::ConfirmRolloutRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  ASSIGN_OR_RETURN(Outcome outcome,
                   Run(service::ConfirmRollout{request.revision()}, request.namespace_(),
                       request.name(), KeyOf(request), actor));
  std::vector<std::string> released;
  for (const store::RecordedEvent& recorded : outcome.result.events) {
    ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
    if (!event.has_rollout_confirmed()) continue;
    for (const std::string& name : event.rollout_confirmed().released_secrets()) {
      released.push_back(name);
    }
  }
  v1::ConfirmRolloutResponse response = Answer<v1::ConfirmRolloutResponse>(std::move(outcome));
  for (std::string& name : released) response.add_released_secrets(std::move(name));
  return response;
}

absl::StatusOr<v1::GetTargetResponse> TargetApi::GetTarget(
    const v1::GetTargetRequest& request) const {
  RETURN_IF_ERROR(ValidateTarget(request.namespace_(), request.name()));
  std::optional<v1::TargetState> state = projector_->Get(request.namespace_(), request.name());
  if (!state.has_value() || state->phase() == v1::TargetState::PHASE_UNSPECIFIED) {
    return absl::NotFoundError(
        absl::StrCat(TargetName(request.namespace_(), request.name()), ": not found"));
  }
  v1::GetTargetResponse response;
  *response.mutable_target() = ToTargetView(*state, projector_->service().connection_hash());
  return response;
}

absl::StatusOr<v1::ListTargetsResponse> TargetApi::ListTargets(
    const v1::ListTargetsRequest& request, const TargetScope& scope) const {
  RETURN_IF_ERROR(ValidateNamespaceFilter(request.namespace_()));
  int64_t seq = 0;
  std::vector<v1::TargetState> states =
      projector_->List(request.namespace_(), request.include_finalized(), &seq);
  const std::string connection_hash = projector_->service().connection_hash();
  v1::ListTargetsResponse response;
  response.set_seq(seq);
  for (const v1::TargetState& state : states) {
    if (!scope.Contains(state.namespace_(), state.name())) continue;
    *response.add_targets() = ToTargetView(state, connection_hash);
  }
  return response;
}

absl::StatusOr<std::unique_ptr<TargetWatch>> TargetApi::WatchTargets(
    const v1::WatchTargetsRequest& request, const TargetScope& scope,
    std::function<void()> wake) const {
  RETURN_IF_ERROR(ValidateWatchStart(request.namespace_(), request.after_seq()));
  TargetWatch::Options options;
  options.target_namespace = request.namespace_();
  options.scope = scope;
  options.after_seq = request.after_seq();
  options.queue_limit = options_.watch_queue_limit;
  options.queue_bytes_limit = options_.watch_queue_bytes;
  return TargetWatch::Start(projector_, std::move(options), std::move(wake));
}

}  // namespace credledger::service
