// IdentityApi: the IdentityService RPCs (proto/credledger/v1/api.proto) without gRPC: input
// validation, the access review, command execution through the IdentityCommandBus, and reads
// from the IdentityProjector (docs/api.md, "IdentityService"; docs/mirrors.md, "Identity spec"
// and "Bindings"). The gRPC adapter (identity_grpc_service.h) only extracts the actor and maps
// statuses.
//
// Every mutating call validates the identity name (a DNS-1123 subdomain), the request id
// (printable ASCII, at most 128 bytes, not "credledger:"-prefixed), the actor and its own
// fields before anything is appended or reviewed; runs the command with the time from the
// injected clock; then waits (bounded) until the projector has folded the command's events,
// so that a read after the call reflects it. Specs are normalized first: `list` and
// `match_labels` sorted (their order carries no meaning), so that the same spec written in
// another order is the same spec.
//
// Access review (docs/mirrors.md, "Access review"): CreateIdentity always, and UpdateIdentity
// when projections::NeedsAccessReview(current spec, new spec), ask the SecretAccessReviewer
// whether the caller's Kubernetes subject may `get` the source Secret. The subject is
// AuthorizationPolicy::SubjectOf(actor): the policy's Kubernetes user for the caller, else
// its identity (under --insecure-allow-all, also a declared name). A declared name (--as, recorded as "declared:<name>") acts as
// a user only when the policy says so (docs/api.md, "Declared names"); otherwise the call
// fails with kPermissionDenied before any review. A retried request runs the review again before
// the log answers it. Should another update land between the read of the current spec and this
// one, and the review turn out to be needed after all, the decider refuses
// (kFailedPrecondition) rather than widen unreviewed; the caller retries.
//
// Target cluster (docs/connections.md, "Mirrors into a registered cluster"): a non-empty
// spec.cluster on CreateIdentity and UpdateIdentity must be a DNS-1123 label and name a cluster
// the cluster projector holds as registered and active; without a cluster projector no cluster
// may be named.
//
// Errors of every mutating call: kInvalidArgument naming the field and rule (name or
// identity, request_id, credledger-actor, spec.*, namespace, owner.*);
// kFailedPrecondition when spec.cluster names a cluster that is not registered;
// kFailedPrecondition when a review is needed and there is no reviewer (no cluster
// connection); kPermissionDenied naming the user, groups and Secret when the review denies,
// or naming the caller when it acts as no Kubernetes user;
// the review's own errors (kUnavailable when the cluster cannot be reached); the decider's
// kNotFound / kFailedPrecondition / kInvalidArgument; kFailedPrecondition when the request
// id was already used for another request; kUnavailable when the log cannot be written. A
// failed call appends nothing.
//
// Thread-safety: all methods are thread-safe (the reviewer must be too).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/identity.pb.h"
#include "projections/cluster_projector.h"
#include "projections/identity_projector.h"
#include "service/api/authorization_policy.h"
#include "service/bus/identity_command_bus.h"
#include "service/bus/prior_request.h"
#include "service/offline/mirror_view.h"

namespace credledger::service {

// Asks the cluster whether a Kubernetes subject may read a Secret (a SubjectAccessReview
// for verb "get" on the Secret). The server implements it over its cluster connection
// (kubebridge::ReviewSecretAccess).
class SecretAccessReviewer {
 public:
  virtual ~SecretAccessReviewer() = default;
  // `review.user`, `review.groups` and `review.secret` name the question (`allowed` is
  // ignored). Returns whether the cluster allows it.
  // Errors: kUnavailable when the cluster cannot be reached; the API's refusal otherwise.
  virtual absl::StatusOr<bool> Review(const v1::AccessReview& review) = 0;
};

class IdentityApi {
 public:
  struct Options {
    // How long a mutating call waits for the projector to fold its events before it answers
    // with the state the command computed.
    absl::Duration read_your_writes_timeout = absl::Seconds(5);
  };

  // `bus`, `projector`, `policy`, `reviewer` and `clock` are not owned and must outlive the
  // api. `reviewer` may be null when the service has no cluster connection: calls that need
  // a review then fail with kFailedPrecondition. `clusters` (not owned; may be null: then no
  // spec may name a cluster) answers whether spec.cluster is registered.
  IdentityApi(IdentityCommandBus* bus, projections::IdentityProjector* projector,
              const AuthorizationPolicy* policy, SecretAccessReviewer* reviewer,
              common::Clock* clock, Options options,
              const projections::ClusterProjector* clusters = nullptr);

  // Mutating RPCs; `actor` is the caller's declared identity (empty means anonymous).
  // Errors: see the file comment; per-RPC rules in api.proto.
  absl::StatusOr<v1::IdentityChangeResponse> CreateIdentity(
      const v1::CreateIdentityRequest& request, absl::string_view actor);
  absl::StatusOr<v1::IdentityChangeResponse> UpdateIdentity(
      const v1::UpdateIdentityRequest& request, absl::string_view actor);
  absl::StatusOr<v1::IdentityChangeResponse> DeleteIdentity(
      const v1::DeleteIdentityRequest& request, absl::string_view actor);
  absl::StatusOr<v1::IdentityChangeResponse> BindIdentity(const v1::BindIdentityRequest& request,
                                                          absl::string_view actor);
  absl::StatusOr<v1::IdentityChangeResponse> UnbindIdentity(
      const v1::UnbindIdentityRequest& request, absl::string_view actor);

  // Reads from the projector. Errors: kInvalidArgument (name); kNotFound for an identity
  // that was never created or is deleted (GetIdentity).
  absl::StatusOr<v1::GetIdentityResponse> GetIdentity(const v1::GetIdentityRequest& request) const;
  absl::StatusOr<v1::ListIdentitiesResponse> ListIdentities(
      const v1::ListIdentitiesRequest& request) const;
  // Mirrors of active identities, ordered by identity then namespace; `current` is true
  // when the source was found at its last observation and its hash is the mirror's.
  // Errors: kInvalidArgument (identity, namespace filters).
  absl::StatusOr<v1::ListMirrorsResponse> ListMirrors(const v1::ListMirrorsRequest& request) const;

 private:
  // Runs `command` for identity `name` and answers with the identity after it.
  absl::StatusOr<v1::IdentityChangeResponse> Run(const IdentityCommand& command,
                                                 absl::string_view name, const RequestKey& request,
                                                 const std::string& actor);
  // The allowed access review of `actor` for `secret`.
  absl::StatusOr<v1::AccessReview> ReviewAccess(const v1::SourceSecretRef& secret,
                                                const std::string& actor);
  // OK when spec.cluster is empty or names an active registered cluster.
  absl::Status CheckCluster(const v1::IdentitySpec& spec) const;

  IdentityCommandBus* const bus_;
  projections::IdentityProjector* const projector_;
  const AuthorizationPolicy* const policy_;
  SecretAccessReviewer* const reviewer_;
  common::Clock* const clock_;
  const Options options_;
  const projections::ClusterProjector* const clusters_;
};

}  // namespace credledger::service
