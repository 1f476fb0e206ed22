// Error classes of connection and source work (docs/connections.md, "Error classes" and
// "Sources").
//
// Unsupported: the configuration asks for something credledger cannot do (an unknown or
// unbuilt auth type, a selected type without its block, a kubeconfig that names files,
// known_hosts data without a usable entry). Retrying cannot help until the configuration
// changes, so callers never retry it: a cluster gets Reachable=False/Unsupported, a source
// reason Unsupported, a mirror write MIRROR_FAILURE_KIND_CLUSTER_UNSUPPORTED.
// Every other error (no class) is retried with backoff: a probe reports ProbeFailed, a
// source VerifyFailed.
//
// The class travels as a payload on an absl::Status with code kFailedPrecondition, so it
// survives annotation and is independent of the code.
//
// Thread-safety: stateless functions.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

// Condition and outcome reasons of the classes (docs/connections.md,
// "Probes and the Reachable condition" and "Sources").
inline constexpr char kReasonUnsupported[] = "Unsupported";
inline constexpr char kReasonProbeFailed[] = "ProbeFailed";
inline constexpr char kReasonProbeSucceeded[] = "ProbeSucceeded";
inline constexpr char kReasonVerified[] = "Verified";
inline constexpr char kReasonVerifyFailed[] = "VerifyFailed";

// A kFailedPrecondition status with `message` marked Unsupported.
absl::Status UnsupportedError(absl::string_view message);

// True when `status` carries the Unsupported mark (UnsupportedError, also after Annotate).
bool IsUnsupported(const absl::Status& status);

// `status` with "<prefix>: " before its message, keeping its code and the Unsupported mark.
absl::Status Annotate(const absl::Status& status, absl::string_view prefix);

}  // namespace credledger::kubebridge
