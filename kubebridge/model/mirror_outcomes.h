// What the mirror bridge reports back about the cluster (docs/design.md, "Intent and outcome";
// docs/mirrors.md, "How a change propagates"): what it observed of the source Secret and of the
// namespaces an identity is bound in, every bound object it found gone, and every mirror it
// wrote, deleted or could not write.
// The bridge declares these and the MirrorOutcomeSink it reports through; service/ implements
// the sink by turning them into identity commands. No outcome carries credential data: the
// source is described by its fingerprint (projections::SourceFingerprint, under the service's
// fingerprint key) and key names.
//
// Thread-safety: plain values; MirrorOutcomeSink implementations are thread-safe.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/identity.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::kubebridge {

// The source Secret as read (uncached) by the bridge.
struct RecordSourceObserved {
  bool found = false;
  std::string source_fingerprint;  // "hmac-sha256:<key id>:<hex>"; empty when not found
  std::vector<std::string> keys;   // data keys in byte order
  std::string resource_version;
};
// The labels of a namespace the identity is bound in.
struct RecordNamespaceLabels {
  std::string namespace_name;
  bool found = false;             // false: the namespace does not exist
  std::vector<v1::Label> labels;  // ordered by key
};
// The bridge created, updated or (after a restart) adopted the mirror in a namespace.
struct RecordMirrorWritten {
  std::string namespace_name;
  v1::SecretRef secret;
  std::string source_fingerprint;          // of the data the mirror holds
  std::vector<v1::OwnerReference> owners;  // ordered by apiVersion, kind, name
  v1::MirrorWriteKind kind = v1::MIRROR_WRITE_KIND_UNSPECIFIED;
  std::vector<std::string> changed;  // UPDATED: "data", "labels", "annotations", ...
};
// The bridge deleted the mirror in a namespace.
struct RecordMirrorDeleted {
  std::string namespace_name;
  v1::SecretRef secret;
  v1::MirrorDeletionReason reason = v1::MIRROR_DELETION_REASON_UNSPECIFIED;
};
// A mirror the log holds is gone and the bridge did not delete it.
struct RecordMirrorDeletedExternally {
  std::string namespace_name;
  v1::SecretRef secret;
};
// An object bound in a namespace does not exist any more (checked by uid before a write).
struct RecordBoundObjectGone {
  std::string namespace_name;
  v1::OwnerReference owner;  // as bound
  v1::BoundObjectAbsence absence = v1::BOUND_OBJECT_ABSENCE_UNSPECIFIED;
};
// The mirror in a namespace could not be made current.
struct RecordMirrorFailed {
  std::string namespace_name;
  v1::MirrorFailureKind kind = v1::MIRROR_FAILURE_KIND_UNSPECIFIED;
  std::string message;  // names the objects and what to do; no credential data
};

using MirrorOutcome = std::variant<RecordSourceObserved, RecordNamespaceLabels, RecordMirrorWritten,
                                   RecordMirrorDeleted, RecordMirrorDeletedExternally,
                                   RecordBoundObjectGone, RecordMirrorFailed>;

// The request id of a bridge step for the identity in `state`:
// "credledger:mirror/<identity>/<incarnation version>/<stream version>/<step>". Tying it to
// the stream version the step was planned from makes a step repeated after a crash (same
// state) append nothing twice, while the same step planned from a later state is new.
std::string MirrorOutcomeRequestId(const v1::IdentityState& state, absl::string_view step);

// What one Record call did.
struct RecordedOutcomes {
  // The identity's state after the call.
  v1::IdentityState state;
  // Events the call appended: 0 when its outcomes changed nothing, and when its request id
  // was answered before. So `state` holds events of others exactly when its stream_version
  // is not the version before the call plus `appended`.
  int64_t appended = 0;
};

// Where the mirror bridge reports outcomes. Implemented by service/.
class MirrorOutcomeSink {
 public:
  virtual ~MirrorOutcomeSink() = default;
  // Records `outcomes` for identity `identity`, in order and atomically (all or none),
  // under `request_id` (MirrorOutcomeRequestId). Outcomes that change nothing (the same
  // source fingerprint, labels or failure again) append nothing.
  // Returns the identity's state after them and how many events they appended.
  // Errors: kNotFound when the identity does not exist (deleted or never created);
  // kInvalidArgument for a malformed outcome; kUnavailable when the log cannot be written.
  virtual absl::StatusOr<RecordedOutcomes> Record(const std::string& identity,
                                                  const std::vector<MirrorOutcome>& outcomes,
                                                  const std::string& request_id) = 0;
  // The identity's current state, read from the log (never from a lagging read model).
  // Errors: kDataLoss for undecodable events; log read errors.
  virtual absl::StatusOr<v1::IdentityState> Load(const std::string& identity) = 0;
};

}  // namespace credledger::kubebridge
