#include "kubebridge/client/access_review.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "kubebridge/client/resource_ref.h"

namespace credledger::kubebridge {

absl::StatusOr<bool> ReviewSecretAccess(KubeClient& client, const v1::AccessReview& review,
                                        Cancellation* cancel) {
  if (review.user().empty() && review.groups().empty()) {
    return absl::InvalidArgumentError(
        "access review: user and groups are both empty; at least one is required");
  }
  if (review.secret().namespace_().empty() || review.secret().name().empty()) {
    return absl::InvalidArgumentError("access review: secret namespace and name are required");
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const std::string& g : review.groups()) groups.push_back(g);
  const nlohmann::json body = {{"apiVersion", "authorization.k8s.io/v1"},
                               {"kind", "SubjectAccessReview"},
                               {"spec",
                                {{"user", review.user()},
                                 {"groups", std::move(groups)},
                                 {"resourceAttributes",
                                  {{"verb", "get"},
                                   {"resource", "secrets"},
                                   {"namespace", review.secret().namespace_()},
                                   {"name", review.secret().name()}}}}}};
  ResourceRef reviews;
  reviews.group = "authorization.k8s.io";
  reviews.version = "v1";
  reviews.resource = "subjectaccessreviews";
  absl::StatusOr<nlohmann::json> answer = client.Create(reviews, body, cancel);
  if (!answer.ok()) return answer.status();
  auto status = answer->find("status");
  if (status == answer->end() || !status->is_object()) {
    return absl::InternalError(
        absl::StrCat("access review of Secret \"", review.secret().namespace_(), "/",
                     review.secret().name(), "\": the answer has no status"));
  }
  auto allowed = status->find("allowed");
  return allowed != status->end() && allowed->is_boolean() && allowed->get<bool>();
}

}  // namespace credledger::kubebridge
