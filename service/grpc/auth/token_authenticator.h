// TokenAuthenticator: callers that present a Kubernetes ServiceAccount token as a bearer token
// (docs/api.md, "ServiceAccount tokens"). The cluster that issued the token reviews it for the
// service's audience (a TokenReview); a token it accepts names the caller
// "system:serviceaccount:<namespace>:<name>".
//
// Answers are cached under the token's SHA-256, so that a caller pays for one review per
// token and minute: an accepted token for at most `max_age` (60 s) and never past the token's
// own expiry (the `exp` claim of its JWT payload, read without checking the signature, which
// the review checks); a refused token for `refusal_age` (10 s), so that a flood of bad tokens
// costs one review per token and interval. A review that could not be made (the cluster
// unreachable) is not cached. At most `max_entries` answers are kept; expired ones are dropped
// first, then the one that expires soonest.
//
// Cached never blocks and is what a gRPC callback thread may call; Authenticate may wait for
// the review and runs on a pool thread (service/grpc/grpc_handlers.h). The token itself is
// kept nowhere and appears in no message.
//
// Thread-safety: thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace credledger::service {

class TokenAuthenticator {
 public:
  // What the cluster answered about a token (a TokenReview's status).
  struct Review {
    bool authenticated = false;
    std::string username;
    std::vector<std::string> audiences;
    std::string error;  // why it was refused, when it was
  };
  // Reviews a token for `audience`. Errors: the review could not be made.
  using ReviewFunction =
      std::function<absl::StatusOr<Review>(const std::string& token, const std::string& audience)>;

  struct Options {
    std::string audience = "credledger";  // --token-audience; not empty
    absl::Duration max_age = absl::Seconds(60);
    absl::Duration refusal_age = absl::Seconds(10);
    size_t max_entries = 4096;  // >= 1
  };

  // `clock` is not owned and must outlive the authenticator.
  TokenAuthenticator(ReviewFunction review, Options options, common::Clock* clock);

  // The cached answer about `token`: the caller's identity or kUnauthenticated; nullopt when
  // none is cached (then Authenticate).
  std::optional<absl::StatusOr<std::string>> Cached(absl::string_view token) const;

  // Cached's answer, or the review's, which is then cached.
  // Errors: kUnauthenticated "the bearer token was refused: <why>" when the cluster refused
  // it, it is not for the audience, or it is not a ServiceAccount's; the review's errors
  // (kUnavailable, kPermissionDenied, ...) prefixed "token review: ", not cached.
  absl::StatusOr<std::string> Authenticate(absl::string_view token);

  const std::string& audience() const { return options_.audience; }

 private:
  struct Entry {
    absl::StatusOr<std::string> identity;
    absl::Time expires;
  };

  // Cached's answer for the hex SHA-256 `key` of a token.
  std::optional<absl::StatusOr<std::string>> CachedByKey(const std::string& key) const;
  // The identity `review` grants, or why it grants none.
  absl::StatusOr<std::string> IdentityOf(const Review& review) const;
  void Store(std::string key, absl::StatusOr<std::string> identity, absl::Time expires)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ReviewFunction review_;
  const Options options_;
  common::Clock* const clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, Entry> cache_ ABSL_GUARDED_BY(mu_);  // by hex SHA-256 of the token
};

}  // namespace credledger::service
