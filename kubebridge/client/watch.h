// ListWatch: keeps a handler in step with one collection (docs/design.md, "Watches").
//
// The loop lists the collection (in pages of options.page_size objects, so that no single
// response grows with the collection), hands the full list to the handler (OnSync), then watches
// from the list's resourceVersion with bookmarks, dispatching each ADDED / MODIFIED /
// DELETED / BOOKMARK event (OnEvent) and remembering the last resourceVersion seen:
//   - stream ended normally (server timeoutSeconds)    -> watch again from that version;
//   - 410 Gone / ERROR event with code 410 (kOutOfRange) -> list again at once (OnSync
//     again: the handler reconciles, e.g. treats missing objects as deleted); a continue
//     token that expired between two pages is the same 410: the list starts over;
//   - kUnavailable (connection lost, 5xx)              -> backoff, then watch again from the
//     last version (a 410 there leads to a re-list);
//   - other errors (403, bad selector, bad event)      -> OnError, backoff, list again.
// The backoff uses the client's clock and options.backoff and resets after a successful
// list or a stream that delivered events.
//
// Run() returns only when cancelled: by the client's Stop(), by the `cancel` argument, or by
// an error returned from a handler method (which is then returned).
//
// Thread-safety: one Run() per handler; handler methods are called on the Run() thread,
// one at a time.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "kubebridge/client/backoff.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/resource_ref.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

class WatchHandler {
 public:
  virtual ~WatchHandler() = default;
  // After every (re-)list: `items` is the complete collection at `resource_version`.
  // An error stops Run().
  virtual absl::Status OnSync(const std::vector<nlohmann::json>& items,
                              const std::string& resource_version) = 0;
  // One watch event, in stream order. An error stops Run().
  virtual absl::Status OnEvent(const WatchEvent& event) = 0;
  // A list or watch failure that the loop will retry after a backoff (never kCancelled,
  // never the 410 that triggers a re-list). Default: ignore.
  virtual void OnError(const absl::Status& status) { (void)status; }
};

struct ListWatchOptions {
  std::string label_selector{};
  std::string field_selector{};
  // Objects per list page (the `limit` parameter), as client-go's reflectors ask; 0 lists
  // everything in one response, which for a big collection can exceed the transport's body
  // limit or request timeout and then never succeeds.
  int64_t page_size = 500;
  // Server-side length of each watch stream (timeoutSeconds).
  absl::Duration watch_timeout = absl::Minutes(5);
  // Wait between failed attempts (max_attempts is not used: the loop never gives up).
  BackoffPolicy backoff;
};

// Runs the list-then-watch loop for the collection `collection` (its name is ignored) until
// cancelled; see the file comment.
// Returns: kCancelled after Stop() / `cancel`; a handler's error when one stops the loop.
absl::Status RunListWatch(KubeClient& client, const ResourceRef& collection,
                          const ListWatchOptions& options, WatchHandler& handler,
                          Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
