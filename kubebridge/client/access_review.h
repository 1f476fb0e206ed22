// The access review that guards pointing an identity at a Secret
// (docs/mirrors.md, "Access review"):
// may a Kubernetes user, with its groups, `get` the source Secret? Asked of the cluster with
// an authorization.k8s.io/v1 SubjectAccessReview, so the cluster's own authorizer (RBAC and
// whatever else it runs) answers.
//
// Thread-safety: as KubeClient.
#pragma once

#include "absl/status/statusor.h"
#include "credledger/v1/identity.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"

namespace credledger::kubebridge {

// POSTs a SubjectAccessReview {user: review.user, groups: review.groups,
// resourceAttributes: {verb "get", resource "secrets", namespace: review.secret.namespace,
// name: review.secret.name}} and returns its status.allowed (absent counts as false, as the
// API omits a false value). review.allowed is ignored.
// Errors: kInvalidArgument when both user and groups are empty or the Secret's namespace or
// name is empty; otherwise the client's: kPermissionDenied when credledger itself may not
// create SubjectAccessReviews, kUnavailable after retries, kCancelled, ...; kInternal when
// the answer has no status object.
absl::StatusOr<bool> ReviewSecretAccess(KubeClient& client, const v1::AccessReview& review,
                                        Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
