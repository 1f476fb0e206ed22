// Bearer tokens of callers checked by the cluster that issued them (docs/api.md,
// "ServiceAccount tokens"): an authentication.k8s.io/v1 TokenReview asks the API server
// whether a token is valid for an audience, and whose it is. The token is sent in the review
// and never appears in what this returns: the answer's echo of it is dropped and an error
// that would quote it is replaced.
//
// Thread-safety: as KubeClient.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"

namespace credledger::kubebridge {

// The API server's answer (status of the TokenReview).
struct TokenReviewAnswer {
  bool authenticated = false;
  std::string username;                // status.user.username, e.g.
                                       // "system:serviceaccount:platform:deployer"
  std::vector<std::string> audiences;  // status.audiences
  std::string error;                   // status.error, when not authenticated
};

// POSTs a TokenReview {spec: {token, audiences: [audience]}} and returns its status.
// Errors: kInvalidArgument when `token` or `audience` is empty; otherwise the client's:
// kPermissionDenied when credledger itself may not create TokenReviews, kUnavailable after
// retries, kCancelled, ...; kInternal when the answer has no status object. No message holds
// the token.
absl::StatusOr<TokenReviewAnswer> ReviewToken(KubeClient& client, absl::string_view token,
                                              absl::string_view audience,
                                              Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
