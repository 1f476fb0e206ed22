// The Target decider: Decide(command, state) -> events, pure (docs/design.md, "Deciders";
// docs/credentials.md, "Lifecycle").
//
// `state` is the fold (projections::EvolveTarget) of the Target's stream; time, actor and
// the service configuration arrive in the CommandContext. A command that is already
// satisfied yields no events. Client commands that start or end a credential (register,
// rotate, lift) carry the mint intent in the same decision, so the intent is never lost.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "service/decide/target_commands.h"

namespace credledger::service {

// Decides `command` against `state`.
// Errors (no events):
//   kNotFound            the Target was never registered or is finalized (all but Register).
//   kFailedPrecondition  RegisterTarget while an incarnation with another uid exists or is
//                        not finalized; rotation, revocation or confirmation of a Target
//                        being deleted; rotation of a revoked Target or with credentials
//                        disabled; ConfirmRollout without a current credential;
//                        RecordTargetFinalized for a Target not being deleted.
//   kInvalidArgument     malformed fields (request value, revision, issued/expiry times).
absl::StatusOr<std::vector<v1::Event>> DecideTarget(const TargetCommand& command,
                                                    const v1::TargetState& state,
                                                    const CommandContext& context);

// The mint intent the state calls for at `context.now`, if any: an unanswered rotation
// request, no current credential, `hint` REPLACEMENT (the current Secret is gone), or the
// rotation due time reached. `hint` also names the reason of a first mint (INITIAL or
// REVOCATION_LIFTED). Nothing while an attempt is open, the Target is not active or revoked,
// credentials are disabled, or the retry delay after the last mint failure
// (projections::MintRetryDelay) has not passed.
std::optional<v1::CredentialMintRequested> PlanMint(const v1::TargetState& state,
                                                    const CommandContext& context,
                                                    v1::MintReason hint);

// The seq of the event that caused `event`, which a command decided against `state` appends
// (docs/events.md, "Metadata"): for a CredentialSecretDeleted of reason REVOKED the
// TargetRevoked in force, of reason TARGET_DELETED the TargetDeletionRequested; 0 for every
// other event.
int64_t CausationSeq(const v1::Event& event, const v1::TargetState& state);

}  // namespace credledger::service
