// The mirror Secret of an identity and the plan that brings one identity's mirrors in line
// with its state (docs/mirrors.md, "The mirror", "How a change propagates", "Revocation"
// and "Conflicts and safety"). Pure JSON builders and comparisons, no I/O: the mirror
// reconciler reads the cluster, plans each namespace (PlanMirrorNamespace, as PlanMirrors
// does for all of them) and carries the plan out.
//
// A mirror is an Opaque Secret named projections::MirrorSecretName(identity) holding a
// verbatim copy of the source Secret's `data`, the labels captf.io/mirrored=true and
// captf.io/managed=true, the annotations captf.io/source-hash and captf.io/identity, and
// exactly one owner reference per binding in its namespace (non-controller,
// blockOwnerDeletion unset). Labels and annotations other than these two pairs, put there by
// someone else, are kept when credledger rewrites a mirror; owner references are not: they
// are exactly the bindings, so a reference added by hand is removed on the next write.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/fingerprint_key.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/identity.pb.h"
#include "credledger/v1/state.pb.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Label and annotation keys, exact strings (docs/mirrors.md, "The mirror").
inline constexpr char kMirroredLabel[] = "captf.io/mirrored";
inline constexpr char kManagedLabel[] = "captf.io/managed";
inline constexpr char kSourceHashAnnotation[] = "captf.io/source-hash";
inline constexpr char kIdentityAnnotation[] = "captf.io/identity";

// What MirrorChanges reports, in this order.
inline constexpr char kChangedData[] = "data";
inline constexpr char kChangedLabels[] = "labels";
inline constexpr char kChangedAnnotations[] = "annotations";
inline constexpr char kChangedOwnerReferences[] = "ownerReferences";

// The mirror Secret of `identity` in namespace `ns`: `source_data` is the source's `data`
// object as read from the API (key -> base64 value), copied verbatim (null or missing data
// becomes {}); `source_hash` is projections::SourceHash of it; `owners` become the owner
// references in the given order (each {apiVersion, kind, name, uid}, no controller and no
// blockOwnerDeletion field).
nlohmann::json DesiredMirror(absl::string_view identity, absl::string_view ns,
                             const nlohmann::json& source_data, absl::string_view source_hash,
                             const std::vector<v1::OwnerReference>& owners);

// True when `secret` is labelled as a mirror of `identity`: labels captf.io/mirrored and
// captf.io/managed both "true" and annotation captf.io/identity equal to `identity`
// ("Conflicts": anything else with the mirror's name is never touched, unless the log records
// it as the mirror by uid, see PlanMirrors).
bool IsMirrorOf(const nlohmann::json& secret, absl::string_view identity);

// What a write of `desired` (DesiredMirror) would change on `live`, as a subset of
// {"data", "labels", "annotations", "ownerReferences"} in that order; empty when nothing
// differs (steady state writes nothing). data: the objects differ (missing counts as {});
// labels, annotations: a key of `desired` is missing from `live` or has another value
// (other keys on `live` are foreign and ignored); ownerReferences: the lists differ as sets
// of entries (order ignored, every field of an entry compared).
std::vector<std::string> MirrorChanges(const nlohmann::json& live, const nlohmann::json& desired);

// The object to PUT over `live`: `desired` with live's metadata.resourceVersion and the
// labels and annotations of `live` that `desired` does not set.
nlohmann::json MergedForUpdate(const nlohmann::json& live, const nlohmann::json& desired);

// The source hash, source fingerprint and key names of a Secret (docs/mirrors.md, "Source
// hash" and "Source fingerprint"): the hash goes into the mirror's captf.io/source-hash
// annotation, the fingerprint into the log.
struct SourceDigest {
  std::string hash;               // lowercase hex, projections::SourceHash
  std::string fingerprint;        // projections::SourceFingerprint
  std::vector<std::string> keys;  // data keys in byte order
};

// Decodes every value of `secret`'s `data` (standard base64 with padding, as the API writes
// it) and hashes the result, and fingerprints it under `key`. Missing or null data is empty
// data.
// Errors: kDataLoss when `data` is not an object, or a value is not a string or not
// canonical base64 (re-encoding the decoded bytes must give the value back); the message
// names the Secret and the key, never the value.
absl::StatusOr<SourceDigest> SourceSecretDigest(const nlohmann::json& secret,
                                                const common::FingerprintKey& key);

// The source Secret as read for one pass.
struct MirrorSource {
  bool found = false;
  // The source's `data` (key -> base64), verbatim; ignored when !found.
  nlohmann::json data = nlohmann::json::object();
  std::string hash;         // SourceDigest::hash, for the annotation; empty when !found
  std::string fingerprint;  // SourceDigest::fingerprint, for the log; empty when !found
};

// What the reconciler does in one namespace.
struct MirrorAction {
  enum class Kind {
    kNone,           // nothing to write
    kCreate,         // POST `object`
    kUpdate,         // PUT `object` (MergedForUpdate); `changes` says what differs
    kAdopt,          // the live mirror is as desired but the log's record is not: record it
    kDelete,         // DELETE the live mirror `uid` (uid precondition) for `deletion_reason`
    kRecordFailure,  // write nothing; record `failure_kind` with `message`
  };
  Kind kind = Kind::kNone;
  std::string namespace_name;
  // The log holds a mirror here that the cluster does not have (none, or a Secret that is
  // not ours, has the name): record RecordMirrorDeletedExternally before anything else.
  bool mirror_gone = false;
  // The namespace is held back (PlanMirrors' `held_back`): a create, update or delete was due
  // and is not made this pass; `kind` is kNone.
  bool held_back = false;
  nlohmann::json object;             // kCreate, kUpdate
  std::vector<std::string> changes;  // kUpdate
  std::string uid;                   // kUpdate, kAdopt, kDelete: the live mirror's uid
  // kCreate, kUpdate, kAdopt: the owners of the bindings not marked gone.
  std::vector<v1::OwnerReference> owners;
  v1::MirrorDeletionReason deletion_reason = v1::MIRROR_DELETION_REASON_UNSPECIFIED;
  v1::MirrorFailureKind failure_kind = v1::MIRROR_FAILURE_KIND_UNSPECIFIED;
  std::string message;  // kRecordFailure: names the objects and what to do
};

// One namespace a pass plans: its entry in the state (null: none) and the live Secret named
// like the mirror there (null: none). The pointers are into the state and the map the
// namespaces were found in (MirrorNamespaces), which must outlive it.
struct MirrorNamespace {
  std::string namespace_name;
  const v1::IdentityNamespaceState* entry = nullptr;
  const nlohmann::json* live = nullptr;
};

// Every namespace that `state` has an entry for or that holds a Secret in `existing`
// (namespace -> live Secret named projections::MirrorSecretName(state.name())), ordered by
// namespace: the namespaces PlanMirrors plans.
std::vector<MirrorNamespace> MirrorNamespaces(
    const v1::IdentityState& state, const std::map<std::string, nlohmann::json>& existing);

// MirrorAction::mirror_gone of `target` (the log holds a mirror there that the cluster does
// not have), without planning the rest.
bool MirrorGone(const v1::IdentityState& state, const MirrorNamespace& target);

// PlanMirrors' action for one of its namespaces, held back when `held_back`. Pure: the
// namespaces of one pass may be planned on several threads.
MirrorAction PlanMirrorNamespace(const v1::IdentityState& state, const MirrorNamespace& target,
                                 const MirrorSource& source, bool held_back);

// Plans one pass over every namespace that `state` has an entry for or that holds a Secret
// with the mirror's name (`existing`: namespace -> live Secret named
// projections::MirrorSecretName(state.name())), given the source as read now. One action per
// namespace, ordered by namespace. A live Secret is *ours* when IsMirrorOf says so or when its
// uid is the one the log records for the namespace's mirror (whatever its labels say now:
// the next write puts them back). A namespace wants a mirror when it has bindings not marked
// gone (docs/mirrors.md, "Bindings"), the spec allows it (projections::EvaluateAllowed is
// kAllowed), the source was found and the mirror would not be the source itself; the
// mirror's owner references are those bindings' owners. Rules, for such namespaces first:
//   - mirror == source (home cluster, same namespace and name): kRecordFailure
//     SOURCE_COLLISION;
//   - source missing: kRecordFailure SOURCE_NOT_FOUND, any existing mirror left as it is
//     (the message mentions the mirror only when the namespace holds one of ours);
//   - a Secret that is not ours: kRecordFailure CONFLICT telling the user to rename or
//     remove it;
//   - no Secret: kCreate; our mirror: kUpdate when MirrorChanges is non-empty (the annotation
//     compared is the plain source hash), else kAdopt when the log's record (uid, source
//     fingerprint, owners) differs or is missing, else kNone. A record of a version 1 event
//     (a plain hash) or under another fingerprint key differs: the mirror is adopted once,
//     not rewritten.
// Otherwise our mirror is deleted (kDelete) when the spec does not allow a namespace with
// such bindings (NAMESPACE_NOT_ALLOWED), when every binding of the namespace is gone
// (BOUND_OBJECTS_GONE), or when it has no binding (UNBOUND); while the verdict is kUnknown,
// in the source's own namespace under the source's name, and for Secrets that are not ours,
// nothing is deleted. A namespace in `held_back` (its mirror's re-creation is being paced,
// docs/mirrors.md, "How a change propagates") writes nothing: a planned kCreate, kUpdate or
// kDelete becomes kNone with `held_back` set, keeping `mirror_gone`.
std::vector<MirrorAction> PlanMirrors(const v1::IdentityState& state,
                                      const std::map<std::string, nlohmann::json>& existing,
                                      const MirrorSource& source,
                                      const std::set<std::string>& held_back);

}  // namespace credledger::kubebridge
