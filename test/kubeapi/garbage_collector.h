// GarbageCollector: the test API server's stand-in for the garbage collector of
// kube-controller-manager (docs/testing.md, "Garbage collection"). It deletes objects whose
// owners, named in metadata.ownerReferences, are all gone.
//
// An owner reference names its owner by apiVersion, kind, name and uid. The apiVersion and
// kind are resolved through the resource registry (a registered resource serving that
// version, ResourceRegistry::FindKind); a cluster-scoped owner is looked up cluster-wide, a
// namespaced one in the dependent's namespace. The owner exists when an object of that
// name exists there with that uid: the same name under another uid is a different, absent,
// owner. For each object with owner references that is not being deleted (no
// deletionTimestamp), a sweep:
// - leaves the object alone when any reference cannot be resolved (an entry that is not an
//   object, an unknown apiVersion or kind, or a namespaced owner of a cluster-scoped
//   object), as the real collector does while it cannot check the reference;
// - deletes it when none of its owners exists, with its uid and resourceVersion as
//   preconditions (an object changed meanwhile is checked again on the next sweep);
// - otherwise removes the references to absent owners (a patch) and keeps the object.
// These are normal writes (a new resourceVersion, watch events, finalizers honoured, a
// Namespace's contents deleted with it) and the request recorder counts each as a delete or
// patch request of kGarbageCollectorUser with the status it got.
//
// A sweep passes over every stored object and repeats until a pass deletes nothing, so the
// dependents of an object it deleted, and theirs, go in the same sweep.
//
// Thread-safety: CollectGarbage is safe to call from any thread, also while the background
// thread sweeps; sweeps run one at a time. Start and Stop are called by the owner, never
// concurrently with each other.
#pragma once

#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/object_store.h"
#include "test/kubeapi/resource_registry.h"
#include "test/kubeapi/server_context.h"

namespace credledger::kubeapi {

// The user the collector's requests are recorded under, as on a cluster whose
// kube-controller-manager runs a service account per controller.
inline constexpr char kGarbageCollectorUser[] =
    "system:serviceaccount:kube-system:generic-garbage-collector";

class GarbageCollector {
 public:
  // REQUIRES: `ctx` is non-null and outlives the collector.
  explicit GarbageCollector(ServerContext* ctx) : ctx_(ctx) {}
  ~GarbageCollector();  // Stop()
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  // Runs one sweep now. Returns the number of objects it deleted, counting an object with
  // finalizers that it only marked for deletion.
  int CollectGarbage();

  // Starts a thread that sweeps every `period` of ctx->config.clock time until Stop().
  // REQUIRES: period > 0; called at most once.
  void Start(absl::Duration period);

  // Ends the background thread, letting a running sweep finish, and joins it. Idempotent.
  void Stop();

 private:
  enum class OwnerState { kExists, kAbsent, kUnresolvable };

  // Whether the owner that `reference` names exists, for a dependent in namespace `ns`.
  OwnerState StateOf(const nlohmann::json& reference, const std::string& ns) const;
  // Applies the rules above to one stored object of `gr`; true when it deleted it.
  bool Collect(const GroupResource& gr, const nlohmann::json& object);
  // Deletes `object`, or patches its ownerReferences to `kept` when `kept` is not empty.
  // Returns true when the write succeeded.
  bool Write(const GroupResource& gr, const nlohmann::json& object, const nlohmann::json& kept);
  void Run(absl::Duration period);

  ServerContext* const ctx_;
  absl::Mutex sweep_mu_;  // held for a whole sweep
  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace credledger::kubeapi
