// ObjectCache: a watch-fed copy of one collection that keeps, per object, only what its
// owner compares (docs/kubernetes.md, "Caches"), so that a pass over every object of a fleet
// reads nothing from the API server.
//
// One thread runs the list-watch loop (watch.h) over the collection with the given selectors.
// Each listed or changed object is kept under "<namespace>/<name>" as its resourceVersion and
// the digest of the fields the owner compares (`digest`, given at Start: the owner computes
// the digest of its desired object with the same function and compares the two). A deleted
// object, or one that stops matching the selectors, is dropped. When an event drops an
// object, adds one the cache lacked, or changes a digest, the cache calls `on_change` (if
// given) with the object's namespace and name, as controller-runtime queues the owner of an
// owned object that changed; a re-list calls nothing (the owner's periodic pass covers it).
//
// The owner's own writes reach the cache at once (Observe, ObserveDeleted), as client-go's
// mutation cache does, so that the pass after a write does not write again before the watch
// delivers the change. The copy then holds the newer of the two: resourceVersions are
// compared as integers (kube-apiserver's are etcd revisions); an object whose version is not
// an integer always replaces the cached one. An object the owner deleted stays as a
// tombstone at its last version, absent to Get, so that a late event from before the
// deletion does not bring it back; its DELETED event or the next list removes it. A re-list
// replaces the whole copy, the owner's recent writes included: at worst the next pass
// writes once more what it wrote just before.
//
// Until the first list has arrived the cache is not synced, and Get answers as if it were
// empty: callers wait for WaitSynced first.
//
// Thread-safety: all methods are thread-safe. Start/Stop from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/resource_ref.h"
#include "kubebridge/client/watch.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// What the cache keeps of one object.
struct CachedObject {
  int64_t resource_version = -1;  // -1 when it is not an integer
  uint64_t digest = 0;            // ObjectCache::DigestFn of the object
};

class ObjectCache {
 public:
  // The digest of the fields the owner compares; equal digests mean no drift. Must be pure.
  using DigestFn = std::function<uint64_t(const nlohmann::json& object)>;
  // Told of a change (see the file comment), on the cache's thread; must not block.
  using ChangeFn = std::function<void(const std::string& ns, const std::string& name)>;

  // Starts following `collection` (its name is ignored; an empty namespace means all) with
  // `options` (selectors, page size, watch timeout, backoff). `client` is not owned and must
  // outlive the cache.
  static std::unique_ptr<ObjectCache> Start(KubeClient* client, ResourceRef collection,
                                            ListWatchOptions options, DigestFn digest,
                                            ChangeFn on_change = nullptr);
  // Stops and joins (Stop).
  ~ObjectCache();
  ObjectCache(const ObjectCache&) = delete;
  ObjectCache& operator=(const ObjectCache&) = delete;

  // Ends the watch, wakes WaitSynced callers and joins the thread. Idempotent.
  void Stop();

  // Blocks until the first list has arrived (true), or `timeout` passed or Stop was called
  // (false).
  bool WaitSynced(absl::Duration timeout = absl::InfiniteDuration()) const;

  // OK once the first list has arrived; before, kUnavailable naming the collection and, after
  // a failed list, its error (readiness notices).
  absl::Status SyncStatus() const;

  // The cached entry of <ns>/<name>; nullopt when absent or not synced yet.
  std::optional<CachedObject> Get(absl::string_view ns, absl::string_view name) const;

  // Blocks until done(Get(ns, name)) holds (true) or `timeout` passes (false); `done` runs
  // under the cache's lock at each change (tests).
  bool AwaitEntry(absl::string_view ns, absl::string_view name,
                  const std::function<bool(const std::optional<CachedObject>&)>& done,
                  absl::Duration timeout) const;

  // The digest of `object` with the cache's function (for the owner's desired object).
  uint64_t Digest(const nlohmann::json& object) const { return digest_(object); }

  // Records `object` (as the server answered a write of the owner) unless the cache holds a
  // newer version of it.
  void Observe(const nlohmann::json& object);

  // Records that the owner deleted <ns>/<name>.
  void ObserveDeleted(absl::string_view ns, absl::string_view name);

  // Objects held (metrics, tests).
  size_t size() const;

 private:
  class Handler;

  ObjectCache(KubeClient* client, ResourceRef collection, ListWatchOptions options, DigestFn digest,
              ChangeFn on_change);
  struct Entry {
    CachedObject object;
    bool deleted = false;  // a tombstone of the owner's delete
  };
  // Stores `object` (unless only_if_newer and the cache holds a newer version); returns true
  // when that added a live entry or changed the digest of one.
  bool Put(const nlohmann::json& object, bool only_if_newer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  KubeClient* client_;
  const ResourceRef collection_;
  const ListWatchOptions options_;
  const DigestFn digest_;
  const ChangeFn on_change_;
  Cancellation stop_;
  std::unique_ptr<Handler> handler_;
  std::thread thread_;

  mutable absl::Mutex mu_;
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);  // of the last failed list or watch
  absl::flat_hash_map<std::string, Entry> objects_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubebridge
