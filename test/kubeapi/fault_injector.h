// FaultInjector: a test seam that makes the API server misbehave on purpose.
//
// A fault matches requests by HTTP method ("" = any) and path prefix (or, with
// `exact_path`, the whole path, so that a collection such as /api/v1/namespaces can fail
// without the namespaced paths below it), and either answers with an error status (429
// TooManyRequests, 500 InternalError, 503 ServiceUnavailable, 504 Timeout, or any other code
// as InternalError) with an optional Retry-After header, or delays the request before it is
// served normally. A fault fires `times` times (-1 = until cleared). Faults are checked in
// the order added; the first match fires. Delays end early when the server stops.
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

struct Fault {
  std::string method;       // "GET", "POST", ...; "" matches any method
  std::string path_prefix;  // matched against the request path without the query
  bool exact_path = false;  // true: the path must equal path_prefix, not just start with it
  int status_code = 0;      // 0 = no error reply (use `delay` only)
  std::optional<int> retry_after_seconds;  // sent as Retry-After with an error reply
  absl::Duration delay = absl::ZeroDuration();  // waited before replying / serving
  int times = -1;                               // remaining firings; -1 = unlimited
};

// What the server should do for one request.
struct FaultAction {
  bool matched = false;
  int status_code = 0;
  std::optional<int> retry_after_seconds;
  absl::Duration delay = absl::ZeroDuration();
};

class FaultInjector {
 public:
  // Adds a fault (after the existing ones).
  void Add(Fault fault);
  // Removes all faults.
  void Clear();
  // Finds the first fault matching `method` and `path`, consumes one firing, and returns
  // its action (matched=false when none matches).
  FaultAction Match(absl::string_view method, absl::string_view path);
  // Number of times any fault has fired since construction.
  int fired() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<Fault> faults_ ABSL_GUARDED_BY(mu_);
  int fired_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace credledger::kubeapi
