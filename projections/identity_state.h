// EvolveIdentity: folds the events of one identity stream into an IdentityState
// (docs/mirrors.md, "Bindings", "Conditions" and "Revocation"; docs/design.md, "Deciders").
// Pure: no clock, no I/O; times come from the events' positions.
//
// After every event the per-namespace conditions are recomputed (only the namespace the
// event names, or every namespace for events that change the spec or the source):
//   IdentityAllowed      True/NamespaceAllowed, False/NamespaceNotAllowed,
//                        Unknown/NamespaceLabelsUnknown (a selector waits for the labels);
//   CredentialsMirrored  False/BoundObjectGone (every object bound in the namespace is gone,
//                        BoundObjectGone; the message names each by kind, name, apiVersion
//                        and uid), True/Mirrored (the mirror holds the source's current hash),
//                        False/NamespaceNotAllowed (the namespace lost or never had access;
//                        its mirror is removed), False/MirrorFailed (the last failure since
//                        the last write: conflict, source missing, write refused; a
//                        source-missing failure also ends when the source is found again),
//                        Unknown/MirrorPending (waiting for the bridge).
// CredentialsMirrored takes the first that applies in that order: every bound object gone,
// not allowed, a failure, the mirror current (source found and its hash equal to the
// mirror's), pending. BoundObjectGone marks its binding gone until an IdentityBound with a
// new uid replaces it or IdentityUnbound removes it.
// A condition's last_transition_time changes only when its status changes.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/target_state.h"

namespace credledger::projections {

inline constexpr char kIdentityAllowedCondition[] = "IdentityAllowed";
inline constexpr char kCredentialsMirroredCondition[] = "CredentialsMirrored";
inline constexpr char kReasonNamespaceAllowed[] = "NamespaceAllowed";
inline constexpr char kReasonNamespaceNotAllowed[] = "NamespaceNotAllowed";
inline constexpr char kReasonNamespaceLabelsUnknown[] = "NamespaceLabelsUnknown";
inline constexpr char kReasonMirrored[] = "Mirrored";
inline constexpr char kReasonMirrorFailed[] = "MirrorFailed";
inline constexpr char kReasonMirrorPending[] = "MirrorPending";
inline constexpr char kReasonBoundObjectGone[] = "BoundObjectGone";

// "identity/<name>".
std::string IdentityStream(absl::string_view name);

// Folds `event` (of the identity's stream, at `at`) into `state`. Events of other streams'
// kinds leave it unchanged. IdentityCreated starts a new incarnation (state reset);
// IdentityUpdated to another secret_ref forgets the source observation (the new Secret is
// not observed yet); IdentityDeleted sets PHASE_DELETED. Namespaces are kept ordered; a
// namespace with no binding and no mirror is dropped.
void EvolveIdentity(v1::IdentityState& state, const v1::Event& event, const EventPosition& at);

// A bound object in words, as conditions and summaries name it: "Job plan (batch/v1, uid
// 6f0c...)".
std::string OwnerWords(const v1::OwnerReference& owner);

// True when `ns` has bindings and every one is marked gone (docs/mirrors.md, "Bindings"):
// the namespace wants no mirror.
bool BindingsAllGone(const v1::IdentityNamespaceState& ns);

// The namespace entry of `ns`; nullptr when the identity has none.
const v1::IdentityNamespaceState* FindIdentityNamespace(const v1::IdentityState& state,
                                                        absl::string_view ns);

}  // namespace credledger::projections
