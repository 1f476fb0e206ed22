// FaultInjector: a test seam that makes the API server misbehave on purpose
// (docs/testing.md, "Faults"; what the kube bridge does then: docs/architecture.md,
// "Kubernetes API faults").
//
// A fault matches requests by HTTP method ("" = any) and path prefix (or, with
// `exact_path`, the whole path, so that a collection such as /api/v1/namespaces can fail
// without the namespaced paths below it). What a matching request meets, in this order:
//   - delay: waited before anything else (slow responses); ends early when the server stops;
//   - hang kBeforeServing: the request is held unanswered and never served (a request lost
//     on its way, or a server that stopped responding) until the client gives up and closes
//     the connection or the server stops; the connection is then closed without an answer;
//   - an error reply (status_code): 429 TooManyRequests, 500 InternalError, 503
//     ServiceUnavailable, 504 Timeout, 409 Conflict in kube-apiserver's wording for a stale
//     update (`Operation cannot be fulfilled on secrets "x": the object has been modified;
//     please apply your changes to the latest version and try again`, naming the object of
//     the path, or of the body's metadata.name for a create), any other code as
//     InternalError; with an optional Retry-After header (and details.retryAfterSeconds);
//     nothing is served;
//   - hang kAfterServing: the request is served (a write takes effect) and its answer is
//     withheld as above (a response lost on its way back: a client's retry then meets the
//     real AlreadyExists or Conflict);
//   - drop_watch_after_events: the watch is served, and after that many event lines
//     (ADDED/MODIFIED/DELETED/BOOKMARK/ERROR; 0 = right after the response headers) its
//     connection is closed without the chunked body's end, as a network drop or an API
//     server restart does; the client sees a transfer error, not a normal end. Such a fault
//     matches watch requests only, so lists of the same path leave it alone.
// A fault fires `times` times (-1 = until cleared). Faults are checked in the order added;
// the first match fires. A watch resumed from a resourceVersion older than the server's
// history gets 410 Expired without any fault (watch_stream.h).
//
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace credledger::kubeapi {

// How a fault holds a request without answering it (see the file comment).
enum class Hang {
  kNone,
  kBeforeServing,  // never served
  kAfterServing,   // served, answer withheld
};

struct Fault {
  std::string method;       // "GET", "POST", ...; "" matches any method
  std::string path_prefix;  // matched against the request path without the query
  bool exact_path = false;  // true: the path must equal path_prefix, not just start with it
  int status_code = 0;      // 0 = no error reply
  std::optional<int> retry_after_seconds;  // sent as Retry-After with an error reply
  absl::Duration delay = absl::ZeroDuration();  // waited before replying / serving
  Hang hang = Hang::kNone;
  // Set: a watch fault that cuts the stream after this many event lines (>= 0).
  std::optional<int> drop_watch_after_events;
  int times = -1;  // remaining firings; -1 = unlimited
};

// What the server should do for one request.
struct FaultAction {
  bool matched = false;
  int status_code = 0;
  std::optional<int> retry_after_seconds;
  absl::Duration delay = absl::ZeroDuration();
  Hang hang = Hang::kNone;
  std::optional<int> drop_watch_after_events;
};

class FaultInjector {
 public:
  // Counts one request as held by a hang fault for its lifetime (the router's use).
  class HeldRequest {
   public:
    explicit HeldRequest(FaultInjector& faults);
    ~HeldRequest();
    HeldRequest(const HeldRequest&) = delete;
    HeldRequest& operator=(const HeldRequest&) = delete;

   private:
    FaultInjector& faults_;
  };

  // Adds a fault (after the existing ones).
  void Add(Fault fault);
  // Removes all faults. Requests already held stay held until their client or the server
  // ends them.
  void Clear();
  // Finds the first fault matching `method`, `path` and whether the request is a watch
  // (`watch`), consumes one firing, and returns its action (matched=false when none
  // matches).
  FaultAction Match(absl::string_view method, absl::string_view path, bool watch);
  // Number of times any fault has fired since construction.
  int fired() const;
  // Blocks until fired() >= count or `timeout` (real time) passes; true when reached.
  bool AwaitFired(int count, absl::Duration timeout) const;
  // Requests a hang fault holds right now.
  int held() const;
  // Blocks until held() == count or `timeout` (real time) passes; true when reached.
  bool AwaitHeld(int count, absl::Duration timeout) const;

 private:
  mutable absl::Mutex mu_;
  std::vector<Fault> faults_ ABSL_GUARDED_BY(mu_);
  int fired_ ABSL_GUARDED_BY(mu_) = 0;
  int held_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace credledger::kubeapi
