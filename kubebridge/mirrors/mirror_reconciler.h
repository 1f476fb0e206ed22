// MirrorReconciler: brings the mirrors of one identity in line with its state
// (docs/mirrors.md, "How a change propagates", "Revocation" and "Conflicts and safety";
// docs/design.md, "Reconcilers").
//
// One pass for an active identity:
//   1. GET the source Secret directly (never from a cache), hash its data (for the mirrors'
//      captf.io/source-hash annotation) and fingerprint it under the service's fingerprint
//      key (for the log); the data stays in memory for this pass only and never reaches an
//      outcome.
//   2. Record what was observed (the source, and the labels of every namespace the identity
//      has an entry for when its spec has a selector) in one Record call, and continue from
//      the state it returns, so that the allowance of each namespace is current.
//   3. LIST the Secrets named like the mirror in all namespaces (one request).
//   4. PlanMirrors (mirror_objects.h), holding back the namespaces the RecreationPacer
//      names (told first which mirrors the plan found deleted by someone else).
//   5. Carry the plan out and record its outcomes (RunMirrorPlan, mirror_plan_runner.h):
//      several namespaces written at once, each write preceded by the check of its owners
//      (owners found gone are recorded and that namespace is not written this pass: the
//      recorded event queues the identity again, and the next plan leaves them out), the
//      outcomes recorded in plan order in few Record calls, each call's request id derived
//      from the state the previous call returned, so a pass repeated after a crash appends
//      nothing twice.
// Nothing that is not a mirror of this identity is ever written or deleted, and the source
// Secret never is. Steady state makes no writes, reads no owner and records nothing.
//
// Thread-safety: Reconcile may run concurrently for different identities, never for the
// same one.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/fingerprint_key.h"
#include "credledger/v1/identity.pb.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/model/mirror_outcomes.h"

namespace credledger::kubebridge {

// A namespace as a NamespaceLookup knows it.
struct NamespaceLabels {
  bool found = false;             // false: the namespace does not exist
  std::vector<v1::Label> labels;  // ordered by key; empty when !found
};

// Where the reconciler reads namespace labels from (implemented from a namespace watch).
// Thread-safety: Lookup may be called from several reconciling threads at once.
class NamespaceLookup {
 public:
  virtual ~NamespaceLookup() = default;
  // The namespace `ns` as currently known; nullopt when the lookup does not know (yet),
  // and the reconciler then reads the namespace from the API server.
  virtual std::optional<NamespaceLabels> Lookup(const std::string& ns) = 0;
};

// Paces the re-creation of mirrors that someone else deleted (docs/mirrors.md, "How a change
// propagates"; implemented by RecreationDamper).
// Thread-safety: HeldBack may be called from several reconciling threads at once.
class RecreationPacer {
 public:
  virtual ~RecreationPacer() = default;
  // Told that this pass found the mirrors of `identity` in the namespaces
  // `deleted_externally` deleted by someone else (often none); returns the namespaces of
  // `identity` whose mirror must not be written now.
  virtual std::set<std::string> HeldBack(const std::string& identity,
                                         const std::vector<std::string>& deleted_externally) = 0;
};

// What one pass did (tests, benchmarks).
struct MirrorReconcileResult {
  bool source_found = false;
  int created = 0;
  int updated = 0;
  int adopted = 0;
  int deleted = 0;
  // Mirrors the log held that were gone (deleted by someone else).
  int deleted_externally = 0;
  // RecordMirrorFailed outcomes: conflicts, source missing or colliding, failed writes.
  int failed = 0;
  // Bound objects found gone (RecordBoundObjectGone outcomes).
  int bound_objects_gone = 0;
  // Namespaces that were due a write and were held back by the RecreationPacer.
  int held_back = 0;
  // A namespace was left waiting on a cause no watch reports reliably (a Secret that is not
  // a mirror of this identity holds the mirror's name, the source is missing, or the mirror
  // would be the source): the caller should run the identity again with backoff until a
  // pass leaves none waiting.
  bool retry = false;
  // The identity's stream version after the pass's last Record call; -1 when the pass
  // recorded nothing (the identity is not active).
  int64_t stream_version = -1;
  // Events other than the pass's own were appended to the identity's stream after the
  // state it was given was read (seen by its Record calls): the pass may not have acted on
  // all of them.
  bool others_appended = false;
  // {namespace, resourceVersion} of every mirror the pass updated, as the API server
  // answered the PUT, in no particular order.
  std::vector<std::pair<std::string, std::string>> updated_versions;
};

class MirrorReconciler {
 public:
  // `client`, `sink` and `fingerprint_key` (whose fingerprints of the source's data every
  // outcome carries) are not owned and must outlive the reconciler; `namespaces` (not owned,
  // may be null: every label read then goes to the API server) likewise, and `pacer` (not
  // owned, may be null: nothing is held back). A pass writes up to `writers` namespaces at
  // once (MirrorPlanContext::writers).
  MirrorReconciler(KubeClient& client, MirrorOutcomeSink& sink, NamespaceLookup* namespaces,
                   const common::FingerprintKey& fingerprint_key, RecreationPacer* pacer = nullptr,
                   int writers = 1);

  // One pass for `state` (the identity's state as read from the log). Does nothing unless
  // state.phase() is PHASE_ACTIVE. The source is read with the home client; namespaces and
  // mirrors are read and written with `target`, the client of the registered cluster that
  // spec.cluster names (null: the home client, and the namespace lookup). Returns what the
  // pass did; `retry` set asks the caller for another pass with backoff. On a registered
  // cluster, a failure to read its namespaces or mirrors is recorded as
  // CLUSTER_UNREACHABLE in every bound namespace before it is returned, and messages of its
  // API server are reduced to ServerFreeMessage (status_mapping.h) in every record.
  // Errors (the work queue retries with backoff): reading the source Secret, a namespace or
  // the mirror list fails (mapped client errors); kDataLoss when the source's data does not
  // decode (SourceSecretDigest); the sink's errors; kCancelled; otherwise the first
  // Kubernetes error of a namespace, returned after every other namespace was handled and
  // every outcome recorded.
  absl::StatusOr<MirrorReconcileResult> Reconcile(const v1::IdentityState& state,
                                                  Cancellation* cancel,
                                                  KubeClient* target = nullptr);

  // Records that the mirrors of `state` cannot be worked on because its cluster cannot be
  // connected to: one RecordMirrorFailed of `kind` (CLUSTER_UNSUPPORTED or
  // CLUSTER_UNREACHABLE) with `message` for every namespace with a binding or a mirror (one
  // waiting for its removal), in one Record call (the decider drops repeats of the last
  // failure).
  // Errors: the sink's.
  absl::Status RecordClusterFailure(const v1::IdentityState& state, v1::MirrorFailureKind kind,
                                    const std::string& message);

 private:
  // The labels of namespace `ns`: from the lookup when `target` is the home client and the
  // lookup knows it, else from `target`'s API server.
  absl::StatusOr<NamespaceLabels> LabelsOf(KubeClient& target, const std::string& ns,
                                           Cancellation* cancel);

  KubeClient& client_;
  MirrorOutcomeSink& sink_;
  NamespaceLookup* namespaces_;
  const common::FingerprintKey& fingerprint_key_;
  RecreationPacer* pacer_;
  const int writers_;
};

}  // namespace credledger::kubebridge
