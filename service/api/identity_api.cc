#include "service/api/identity_api.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dns_label.h"
#include "common/status_macros.h"
#include "projections/allowed_namespaces.h"
#include "service/api/target_api.h"
#include "service/decide/cluster_validation.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

// True when `key` already answered `command` for identity `name`, so the bus would replay it.
// Errors: CommandBus::FindAnswer's.
absl::StatusOr<bool> Answered(IdentityCommandBus& bus, const IdentityCommand& command,
                              const std::string& name, const RequestKey& key) {
  const IdentityCommandContext context{
      .identity = name, .request_id = key.id, .request_digest = key.digest};
  ASSIGN_OR_RETURN(const auto prior, bus.FindAnswer(command, context));
  return prior.has_value();
}

constexpr char kNoReviewerMessage[] =
    "identity changes that need an access review require a cluster connection "
    "(--kubeconfig or in-cluster)";

// Sorts the parts of a spec whose order carries no meaning; duplicates stay for
// validation to refuse.
v1::IdentitySpec Normalized(v1::IdentitySpec spec) {
  if (!spec.has_allowed_namespaces()) return spec;
  v1::AllowedNamespaces& allowed = *spec.mutable_allowed_namespaces();
  std::stable_sort(allowed.mutable_list()->begin(), allowed.mutable_list()->end());
  if (allowed.has_selector()) {
    auto* labels = allowed.mutable_selector()->mutable_match_labels();
    std::stable_sort(labels->begin(), labels->end(),
                     [](const v1::Label& a, const v1::Label& b) { return a.key() < b.key(); });
  }
  return spec;
}

// The request key of a create or update request whose spec is `normalized`: two requests
// that differ only in the order of their lists are the same request.
template <typename Request>
RequestKey NormalizedKey(Request request, const v1::IdentitySpec& normalized) {
  *request.mutable_spec() = normalized;
  return KeyOf(request);
}

absl::Status ValidateIdentityName(absl::string_view field, absl::string_view name) {
  return common::ValidateDnsSubdomain(field, name);
}

std::string SubjectText(const v1::AccessReview& review) {
  std::string text = absl::StrCat("user \"", review.user(), "\"");
  if (!review.groups().empty()) {
    absl::StrAppend(&text, " (groups \"", absl::StrJoin(review.groups(), "\", \""), "\")");
  }
  return text;
}

v1::MirrorView ToMirrorView(const v1::IdentityState& identity,
                            const v1::IdentityNamespaceState& ns) {
  const v1::MirrorRecord& mirror = ns.mirror();
  v1::MirrorView view;
  view.set_identity(identity.name());
  view.set_namespace_(ns.namespace_());
  *view.mutable_secret() = mirror.secret();
  view.set_source_hash(mirror.source_hash());
  view.set_source_fingerprint(mirror.source_fingerprint());
  view.set_current(MirrorIsCurrent(identity, mirror));
  *view.mutable_owners() = mirror.owners();
  if (mirror.has_written_at()) *view.mutable_written_at() = mirror.written_at();
  *view.mutable_identity_allowed() = ns.identity_allowed();
  *view.mutable_credentials_mirrored() = ns.credentials_mirrored();
  return view;
}

}  // namespace

IdentityApi::IdentityApi(IdentityCommandBus* bus, projections::IdentityProjector* projector,
                         const AuthorizationPolicy* policy, SecretAccessReviewer* reviewer,
                         common::Clock* clock, Options options,
                         const projections::ClusterProjector* clusters)
    : bus_(bus),
      projector_(projector),
      policy_(policy),
      reviewer_(reviewer),
      clock_(clock),
      options_(options),
      clusters_(clusters) {}

absl::Status IdentityApi::CheckCluster(const v1::IdentitySpec& spec) const {
  if (spec.cluster().empty()) return absl::OkStatus();
  RETURN_IF_ERROR(ValidateClusterName("spec.cluster", spec.cluster()));
  const absl::Status active =
      clusters_ == nullptr
          ? absl::NotFoundError(absl::StrCat("cluster \"", spec.cluster(), "\" is not registered"))
          : clusters_->GetActive(spec.cluster()).status();
  if (active.ok()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "spec.cluster: ", active.message(), "; register it first (`credledger cluster register`)"));
}

absl::StatusOr<v1::AccessReview> IdentityApi::ReviewAccess(const v1::SourceSecretRef& secret,
                                                           const std::string& actor) {
  if (reviewer_ == nullptr) return absl::FailedPreconditionError(kNoReviewerMessage);
  const std::optional<AuthorizationPolicy::KubernetesSubject> subject = policy_->SubjectOf(actor);
  if (!subject.has_value()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "access review: caller \"", actor,
        "\" acts as no Kubernetes user: a declared name (--as) is not authenticated, so it "
        "needs a policy entry that names kubernetes.user or sets allow_declared"));
  }
  v1::AccessReview review;
  review.set_user(subject->user);
  for (const std::string& group : subject->groups) review.add_groups(group);
  *review.mutable_secret() = secret;
  ASSIGN_OR_RETURN(const bool allowed, reviewer_->Review(review));
  review.set_allowed(allowed);
  if (!allowed) {
    return absl::PermissionDeniedError(absl::StrCat(
        "access review: ", SubjectText(review), " may not get Secret \"", secret.namespace_(), "/",
        secret.name(), "\"; an identity may only point at a Secret its author can read"));
  }
  return review;
}

absl::StatusOr<v1::IdentityChangeResponse> IdentityApi::Run(const IdentityCommand& command,
                                                            absl::string_view name,
                                                            const RequestKey& request,
                                                            const std::string& actor) {
  IdentityCommandContext context;
  context.identity = std::string(name);
  context.now = clock_->Now();
  context.actor = actor;
  context.request_id = request.id;
  context.request_digest = request.digest;
  ASSIGN_OR_RETURN(IdentityCommandResult result, bus_->Execute(command, context));

  v1::IdentityChangeResponse response;
  response.set_replayed(result.replayed);
  if (!result.events.empty()) response.set_seq(result.events.back().seq);
  // Read your writes: answer from the projector once it has folded the command's events;
  // past the timeout, from the state the command itself computed.
  const int64_t wait_for = std::max(response.seq(), result.state.seq());
  std::optional<v1::IdentityState> state;
  if (projector_->WaitForSeq(wait_for, options_.read_your_writes_timeout)) {
    state = projector_->GetIdentity(name);
  }
  if (!state.has_value() || state->seq() < wait_for) state = std::move(result.state);
  *response.mutable_identity() = *std::move(state);
  return response;
}

absl::StatusOr<v1::IdentityChangeResponse> IdentityApi::CreateIdentity(
    const v1::CreateIdentityRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateIdentityName("name", request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  service::CreateIdentity command;
  command.spec = Normalized(request.spec());
  RETURN_IF_ERROR(projections::ValidateIdentitySpec(command.spec));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  const RequestKey key = NormalizedKey(request, command.spec);
  ASSIGN_OR_RETURN(const bool answered, Answered(*bus_, command, request.name(), key));
  // A retry of an answered request is replayed as it was decided then, without checking
  // the cluster or reviewing access again.
  if (!answered) {
    RETURN_IF_ERROR(CheckCluster(command.spec));
    ASSIGN_OR_RETURN(command.review, ReviewAccess(command.spec.secret_ref(), resolved));
  }
  return Run(command, request.name(), key, resolved);
}

absl::StatusOr<v1::IdentityChangeResponse> IdentityApi::UpdateIdentity(
    const v1::UpdateIdentityRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateIdentityName("name", request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  service::UpdateIdentity command;
  command.spec = Normalized(request.spec());
  RETURN_IF_ERROR(projections::ValidateIdentitySpec(command.spec));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  const RequestKey key = NormalizedKey(request, command.spec);
  ASSIGN_OR_RETURN(const bool answered, Answered(*bus_, command, request.name(), key));
  if (answered) return Run(command, request.name(), key, resolved);  // replayed, as in Create
  RETURN_IF_ERROR(CheckCluster(command.spec));
  // An identity that is not active needs no review: the decider refuses the update.
  ASSIGN_OR_RETURN(const v1::IdentityState current, bus_->LoadState({.identity = request.name()}));
  if (current.phase() == v1::IdentityState::PHASE_ACTIVE &&
      projections::NeedsAccessReview(current.spec(), command.spec)) {
    ASSIGN_OR_RETURN(command.review, ReviewAccess(command.spec.secret_ref(), resolved));
  }
  return Run(command, request.name(), key, resolved);
}

absl::StatusOr<v1::IdentityChangeResponse> IdentityApi::DeleteIdentity(
    const v1::DeleteIdentityRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateIdentityName("name", request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  return Run(service::DeleteIdentity{}, request.name(), KeyOf(request), resolved);
}

absl::StatusOr<v1::IdentityChangeResponse> IdentityApi::BindIdentity(
    const v1::BindIdentityRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateIdentityName("identity", request.identity()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  RETURN_IF_ERROR(ValidateDnsLabel("namespace", request.namespace_()));
  RETURN_IF_ERROR(ValidateOwnerReference(request.owner(), /*require_uid=*/true));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  return Run(service::BindIdentity{request.namespace_(), request.owner()}, request.identity(),
             KeyOf(request), resolved);
}

absl::StatusOr<v1::IdentityChangeResponse> IdentityApi::UnbindIdentity(
    const v1::UnbindIdentityRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateIdentityName("identity", request.identity()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  RETURN_IF_ERROR(ValidateDnsLabel("namespace", request.namespace_()));
  RETURN_IF_ERROR(ValidateOwnerReference(request.owner(), /*require_uid=*/false));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  return Run(service::UnbindIdentity{request.namespace_(), request.owner()}, request.identity(),
             KeyOf(request), resolved);
}

absl::StatusOr<v1::GetIdentityResponse> IdentityApi::GetIdentity(
    const v1::GetIdentityRequest& request) const {
  RETURN_IF_ERROR(ValidateIdentityName("name", request.name()));
  std::optional<v1::IdentityState> state = projector_->GetIdentity(request.name());
  if (!state.has_value() || state->phase() != v1::IdentityState::PHASE_ACTIVE) {
    return absl::NotFoundError(absl::StrCat("identity \"", request.name(), "\": not found"));
  }
  v1::GetIdentityResponse response;
  *response.mutable_identity() = *std::move(state);
  return response;
}

absl::StatusOr<v1::ListIdentitiesResponse> IdentityApi::ListIdentities(
    const v1::ListIdentitiesRequest& request) const {
  int64_t seq = 0;
  std::vector<v1::IdentityState> states = projector_->List(request.include_deleted(), &seq);
  v1::ListIdentitiesResponse response;
  response.set_seq(seq);
  for (v1::IdentityState& state : states) *response.add_identities() = std::move(state);
  return response;
}

absl::StatusOr<v1::ListMirrorsResponse> IdentityApi::ListMirrors(
    const v1::ListMirrorsRequest& request) const {
  if (!request.identity().empty()) {
    RETURN_IF_ERROR(ValidateIdentityName("identity", request.identity()));
  }
  RETURN_IF_ERROR(ValidateNamespaceFilter(request.namespace_()));
  int64_t seq = 0;
  const std::vector<v1::IdentityState> states = projector_->List(/*include_deleted=*/false, &seq);
  v1::ListMirrorsResponse response;
  response.set_seq(seq);
  for (const v1::IdentityState& identity : states) {
    if (!request.identity().empty() && identity.name() != request.identity()) continue;
    for (const v1::IdentityNamespaceState& ns : identity.namespaces()) {
      if (!ns.has_mirror()) continue;
      if (!request.namespace_().empty() && ns.namespace_() != request.namespace_()) continue;
      *response.add_mirrors() = ToMirrorView(identity, ns);
    }
  }
  return response;
}

}  // namespace credledger::service
