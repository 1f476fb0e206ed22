// ObjectStore: the test API server's in-memory database of JSON objects and its event
// history for watches.
//
// Objects are keyed by (group, resource, namespace, name); namespace is "" for
// cluster-scoped resources. Stored objects are immutable JSON values shared by pointer.
// Every successful write (create, replace, delete) takes the next value of one global
// counter as its resourceVersion, writes it into metadata.resourceVersion (as a decimal
// string), and appends one event to the history. The history keeps the newest
// `history_limit` events, and besides them every event younger than `history_window` (real
// time), as kube-apiserver's watch cache keeps at least 75 s of events; since
// resourceVersions are contiguous, a watch may resume from any rv >= (rv of the oldest kept
// event) - 1, and older ones are "expired" (HTTP 410).
// The caller (request handlers) owns all Kubernetes semantics (uids, defaults,
// validation); the store owns atomicity, ordering and not-found/already-exists checks.
//
// Thread-safety: all methods are safe to call concurrently. MutateFn callbacks run under
// the store's lock and must not call back into the store.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/group_resource.h"

namespace credledger::kubeapi {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

enum class StoreEventType { kAdded, kModified, kDeleted };

struct StoreEvent {
  int64_t resource_version = 0;
  StoreEventType type = StoreEventType::kAdded;
  GroupResource gr;
  std::string namespace_name;
  ObjectPtr object;    // state after the write; for deletions the final state
  ObjectPtr previous;  // state before the write; null for additions
  absl::Time recorded_at;  // real time of the write
};

// A consistent list: every object of the resource (in the namespace) at resource_version.
struct ListSnapshot {
  std::vector<ObjectPtr> items;  // ordered by namespace, then name
  int64_t resource_version = 0;
};

// Events after a resourceVersion.
struct EventBatch {
  std::vector<StoreEvent> events;  // ascending resourceVersion
  bool expired = false;            // the requested position is older than the history
  int64_t oldest_resumable = 0;    // the smallest rv a watch can still resume from
};

// What a MutateFn decided to do with the current object.
struct Mutation {
  enum class Kind { kKeep, kReplace, kDelete };
  Kind kind = Kind::kKeep;
  nlohmann::json object;  // kReplace: the new state (metadata.resourceVersion is overwritten)
};
using MutateFn = std::function<absl::StatusOr<Mutation>(const nlohmann::json& current)>;

struct MutationResult {
  ObjectPtr object;  // the state after (kKeep: the unchanged object; kDelete: final state)
  bool changed = false;
  bool deleted = false;
};

class ObjectStore {
 public:
  // REQUIRES: history_limit >= 0, history_window >= 0.
  ObjectStore(int64_t history_limit, absl::Duration history_window);

  // Stores `object` (whose metadata.name is the key) under a new resourceVersion.
  // Errors: AlreadyExists Status (409) when the key is taken.
  absl::StatusOr<ObjectPtr> Create(const GroupResource& gr, const std::string& ns,
                                   nlohmann::json object);

  // The current object. Errors: NotFound Status (404).
  absl::StatusOr<ObjectPtr> Get(const GroupResource& gr, const std::string& ns,
                                const std::string& name) const;

  // Every object of `gr` in namespace `ns` ("" = all namespaces / cluster scope).
  ListSnapshot List(const GroupResource& gr, const std::string& ns) const;

  // The resources that hold at least one object, in order.
  std::vector<GroupResource> GroupResources() const;

  // Atomically reads the current object, calls `fn` with it and applies its decision.
  // Errors: NotFound Status when the object is missing; any error `fn` returns.
  absl::StatusOr<MutationResult> Mutate(const GroupResource& gr, const std::string& ns,
                                        const std::string& name, const MutateFn& fn);

  // Deletes every namespaced object in namespace `ns`, one DELETED event each.
  void DeleteNamespaceContents(const std::string& ns);

  // The resourceVersion of the newest write (0 before the first).
  int64_t CurrentResourceVersion() const;

  // Up to `max` events with resourceVersion > `after`, or expired when some were dropped.
  EventBatch EventsAfter(int64_t after, size_t max) const;

  // Blocks until an event newer than `after` exists, the bookmark generation differs from
  // `bookmark_generation`, Shutdown() was called, or the real-time `deadline` passes.
  void AwaitActivity(int64_t after, uint64_t bookmark_generation, absl::Time deadline) const;

  // A counter bumped by RequestBookmarks(); watchers send a bookmark when it changes.
  uint64_t BookmarkGeneration() const;
  void RequestBookmarks();

  // Blocks until Shutdown() was called or the real-time `deadline` passes.
  void AwaitShutdown(absl::Time deadline) const;

  // Wakes every waiter for good; IsShutDown() is true afterwards.
  void Shutdown();
  bool IsShutDown() const;

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name
  using Table = std::map<Key, ObjectPtr>;

  // Assigns the next resourceVersion to `object`, records the event and returns the stored
  // pointer.
  ObjectPtr Commit(StoreEventType type, const GroupResource& gr, const std::string& ns,
                   nlohmann::json object, ObjectPtr previous) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t history_limit_;
  const absl::Duration history_window_;
  mutable absl::Mutex mu_;
  std::map<GroupResource, Table> tables_ ABSL_GUARDED_BY(mu_);
  std::deque<StoreEvent> history_ ABSL_GUARDED_BY(mu_);
  int64_t resource_version_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t bookmark_generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::kubeapi
