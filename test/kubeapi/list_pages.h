// ListPages: the consistent snapshots behind paged lists (`limit` and `continue`) of the test
// API server (docs/testing.md, "The test Kubernetes API server").
//
// kube-apiserver serves a list with `limit=N` as pages of at most N objects, all read at the
// resourceVersion of the first page; `metadata.continue` carries the position of the next
// page until the last one. A continue token stays good until etcd compacts that revision
// (every 5 minutes by default); after that the server answers 410 Expired and the client
// must list again from the start. Here the first page's selected objects are kept as a
// snapshot under an id the token names; a snapshot is dropped when its last page is served,
// `ttl` after the first page on the server's clock, or when more than `max_open` snapshots
// are open (the oldest goes first): a token of a dropped snapshot is answered 410 Expired.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "test/kubeapi/object_store.h"

namespace credledger::kubeapi {

// One page of a list.
struct ListPage {
  std::vector<ObjectPtr> items;
  int64_t resource_version = 0;  // the first page's, on every page
  std::string continue_token;    // empty on the last page
  int64_t remaining = 0;         // objects after this page
};

class ListPages {
 public:
  // REQUIRES: ttl > 0, max_open >= 1, `clock` outlives the object.
  ListPages(const common::Clock* clock, absl::Duration ttl, size_t max_open);

  // The first page of `snapshot` (already filtered by the request's selectors) for the
  // collection `collection` (any string naming resource and namespace): at most `limit`
  // objects (REQUIRES: limit >= 1). Keeps the rest for the continue token.
  ListPage First(ListSnapshot snapshot, const std::string& collection, int64_t limit);

  // The page after `token` of `collection`, at most `limit` objects (0: all the rest, as
  // kube-apiserver serves a continue without limit).
  // Errors: kInvalidArgument (400) when the token is malformed or was issued for another
  // collection; kOutOfRange (410 Expired) when its snapshot was dropped.
  absl::StatusOr<ListPage> Next(const std::string& token, const std::string& collection,
                                int64_t limit);

 private:
  struct Snapshot {
    std::string collection;
    std::vector<ObjectPtr> items;
    int64_t resource_version = 0;
    absl::Time expires_at;
  };

  // Cuts the page starting at `offset` of snapshot `id` and drops the snapshot after its
  // last page.
  ListPage Cut(uint64_t id, Snapshot& snapshot, size_t offset, int64_t limit)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropExpired(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const common::Clock* clock_;
  const absl::Duration ttl_;
  const size_t max_open_;
  absl::Mutex mu_;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, Snapshot> open_ ABSL_GUARDED_BY(mu_);  // by id: oldest first
};

}  // namespace credledger::kubeapi
