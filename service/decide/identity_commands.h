// Commands of the identity stream (docs/mirrors.md, "Bindings"). Client commands come from
// IdentityService; the mirror bridge's outcomes arrive as one ApplyMirrorOutcomes command
// (docs/design.md, "Intent and outcome"). Plain structs, named as imperatives.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/time/time.h"
#include "credledger/v1/identity.pb.h"
#include "kubebridge/model/mirror_outcomes.h"

namespace credledger::service {

// Creates the identity with `spec`; `review` is the access review the API edge ran for
// spec.secret_ref (required, and must be allowed).
struct CreateIdentity {
  v1::IdentitySpec spec;
  v1::AccessReview review;
};
// Replaces the spec. `review` is set when the API edge ran an access review for the new
// spec (it must whenever projections::NeedsAccessReview(old, new) holds).
struct UpdateIdentity {
  v1::IdentitySpec spec;
  std::optional<v1::AccessReview> review;
};
struct DeleteIdentity {};
// `owner` in namespace `namespace_name` uses the identity.
struct BindIdentity {
  std::string namespace_name;
  v1::OwnerReference owner;
};
// `owner` (uid optional) in namespace `namespace_name` stops using the identity.
struct UnbindIdentity {
  std::string namespace_name;
  v1::OwnerReference owner;
};
// The mirror bridge's outcomes, decided one after the other against the evolving state and
// appended together.
struct ApplyMirrorOutcomes {
  std::vector<kubebridge::MirrorOutcome> outcomes;
};

using IdentityCommand = std::variant<CreateIdentity, UpdateIdentity, DeleteIdentity,
                                     BindIdentity, UnbindIdentity, ApplyMirrorOutcomes>;

// The command's type name ("CreateIdentity", "ApplyMirrorOutcomes", ...), recorded in each
// event's metadata.
std::string IdentityCommandName(const IdentityCommand& command);

// What every identity command carries besides its own fields.
// Every field is defaulted, so an initializer names only what it sets.
struct IdentityCommandContext {
  std::string identity = {};  // the identity's name
  absl::Time now = {};
  std::string actor = {};
  std::string request_id = {};
  // RequestDigest of the client's request (service/bus/prior_request.h); empty for the service's
  // own commands.
  std::string request_digest = {};
};

}  // namespace credledger::service
