// RequestRecorder: counts the requests each authenticated user made, by what they asked for
// (verb, API group, resource with its subresource, or the path of a non-resource request)
// and the HTTP status the server answered, so a test can prove which rights a client used
// and that none of its requests was refused (403): the ClusterRole must hold exactly the
// rights credledger uses (docs/kubernetes.md, "Rights credledger needs").
//
// Every request that passed authentication is recorded once it was answered, including
// those RBAC refused (code 403); a watch is recorded when its stream starts (code 200). A
// server-side apply that creates its object needs the create right as well, and that check
// counts as a create request with the outcome of the creation (server_side_apply.h), marked
// as a check (RequestCount::check), so that a count of HTTP requests can leave it out.
// Requests answered before authentication (anonymous discovery paths, injected faults,
// 401s) are not recorded. Memory grows with the number of distinct (user, verb, group,
// resource, path, code) tuples, not with the number of requests, so servers of fleet-scale
// benchmarks record too.
//
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "test/kubeapi/rbac.h"

namespace credledger::kubeapi {

// One kind of request a user made, and how often.
struct RequestCount {
  std::string verb;      // get list watch create update patch delete deletecollection; the
                         // lowercase HTTP method of a non-resource request
  std::string group;     // API group; "" for the core group and non-resource requests
  std::string resource;  // "secrets", "serviceaccounts/token"; "" for non-resource requests
  std::string path;      // the path of a non-resource request ("/version"); "" otherwise
  int code = 0;          // HTTP status answered; 403 when RBAC refused the request
  int64_t count = 0;     // requests of this kind, >= 1
  // True for the create right a server-side apply that created its object was checked for:
  // a right used, not an HTTP request of its own (the apply is counted as a patch).
  bool check = false;
};

class RequestRecorder {
 public:
  // Counts one request of `username` described by `attrs`, answered with `code`; `check`
  // marks the create right of an apply (see RequestCount::check).
  void Record(const std::string& username, const AuthorizationAttributes& attrs, int code,
              bool check = false);

  // The requests of `username` so far, ordered by group, resource, path, verb, code and
  // check; empty when the user made none.
  std::vector<RequestCount> CountsOf(const std::string& username) const;

 private:
  // (username, group, resource, path, verb, code, check)
  using Key =
      std::tuple<std::string, std::string, std::string, std::string, std::string, int, bool>;

  mutable absl::Mutex mu_;
  std::map<Key, int64_t> counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubeapi
