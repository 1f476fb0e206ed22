// The identity decider: Decide(command, state) -> events, pure (docs/design.md, "Deciders";
// docs/mirrors.md, "Bindings" and "Conditions").
//
// `state` is the fold (projections::EvolveIdentity) of stream `identity/<name>`; the name,
// time and actor arrive in the IdentityCommandContext. A command that is already satisfied
// yields no events. ApplyMirrorOutcomes decides its outcomes one after the other, each
// against the state evolved by the events of the ones before it, and records only what
// changed. Every error message starts with `identity "<name>": ` and names the rule.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "service/decide/identity_commands.h"

namespace credledger::service {

// Decides `command` against `state`:
//   CreateIdentity       IdentityCreated{name, spec, review}; nothing when active with the
//                        same spec.
//   UpdateIdentity       IdentityUpdated{spec, review when given}; nothing for the same spec.
//                        A given review, and one NeedsAccessReview(old, new) requires, must
//                        be allowed and about the new spec.secret_ref.
//   DeleteIdentity       IdentityDeleted.
//   BindIdentity         IdentityBound; nothing when the object is bound with the same uid;
//                        `replaced_uid` when it is bound with another uid (an earlier object
//                        of the same apiVersion, kind and name).
//   UnbindIdentity       IdentityUnbound with the bound owner; nothing when not bound.
//   ApplyMirrorOutcomes  per outcome: SourceSecretObserved when found, fingerprint or keys
//                        differ from the last observation (or there was none; a plain hash
//                        of a version 1 event differs from every fingerprint);
//                        NamespaceLabelsObserved for a namespace the state holds, when found
//                        or labels differ (or were never observed); MirrorWritten (ADOPTED
//                        only when it differs from the mirror record or the namespace has a
//                        failure recorded since the last write); MirrorDeleted;
//                        MirrorDeletedExternally when the log holds that mirror (same uid,
//                        unless the outcome names none); BoundObjectGone when the owner is
//                        bound there with that uid and not yet marked gone (a repeat, or an
//                        owner unbound or replaced since, records nothing); MirrorFailed when
//                        kind or message differ from the namespace's current failure (or
//                        there is none).
// Errors (no events):
//   kNotFound            the identity was never created or is deleted (all but Create).
//   kFailedPrecondition  Create of an active identity with another spec; an access review
//                        missing, denied or about another Secret; Delete while an object is
//                        bound or a mirror remains (naming the namespaces); Unbind with a uid
//                        other than the bound one.
//   kInvalidArgument     an invalid spec (projections::ValidateIdentitySpec); on Bind, a
//                        malformed namespace or owner reference (ValidateOwnerReference,
//                        uid required); a malformed outcome (namespace not a DNS-1123
//                        label; a gone owner's reference malformed or without uid, as
//                        ValidateOwnerReference checks; the source_fingerprint of a found
//                        source or of a written mirror not "hmac-sha256:<16 hex key
//                        id>:<64 hex>", as common::ValidateFingerprint checks; a source not
//                        found with a fingerprint or keys).
absl::StatusOr<std::vector<v1::Event>> DecideIdentity(const IdentityCommand& command,
                                                      const v1::IdentityState& state,
                                                      const IdentityCommandContext& context);

}  // namespace credledger::service
