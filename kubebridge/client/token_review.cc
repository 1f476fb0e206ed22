#include "kubebridge/client/token_review.h"

#include <utility>

#include "absl/strings/match.h"
#include "kubebridge/client/resource_ref.h"

namespace credledger::kubebridge {
namespace {

// `status` with its message replaced when it would quote `token`.
absl::Status WithoutToken(absl::Status status, absl::string_view token) {
  if (!absl::StrContains(status.message(), token)) return status;
  return absl::Status(status.code(),
                      "token review: the API server refused the review (its "
                      "message quoted the token and is not shown)");
}

}  // namespace

absl::StatusOr<TokenReviewAnswer> ReviewToken(KubeClient& client, absl::string_view token,
                                              absl::string_view audience, Cancellation* cancel) {
  if (token.empty()) return absl::InvalidArgumentError("token review: the token is empty");
  if (audience.empty()) return absl::InvalidArgumentError("token review: the audience is empty");
  const nlohmann::json body = {
      {"apiVersion", "authentication.k8s.io/v1"},
      {"kind", "TokenReview"},
      {"spec", {{"token", std::string(token)}, {"audiences", {std::string(audience)}}}}};
  ResourceRef reviews;
  reviews.group = "authentication.k8s.io";
  reviews.version = "v1";
  reviews.resource = "tokenreviews";
  absl::StatusOr<nlohmann::json> answer = client.Create(reviews, body, cancel);
  if (!answer.ok()) return WithoutToken(answer.status(), token);
  answer->erase("spec");  // the echo of the token
  const auto status = answer->find("status");
  if (status == answer->end() || !status->is_object()) {
    return absl::InternalError("token review: the answer has no status");
  }
  TokenReviewAnswer result;
  if (auto it = status->find("authenticated"); it != status->end() && it->is_boolean()) {
    result.authenticated = it->get<bool>();
  }
  if (auto user = status->find("user"); user != status->end() && user->is_object()) {
    if (auto name = user->find("username"); name != user->end() && name->is_string()) {
      result.username = name->get<std::string>();
    }
  }
  if (auto list = status->find("audiences"); list != status->end() && list->is_array()) {
    for (const nlohmann::json& item : *list) {
      if (item.is_string()) result.audiences.push_back(item.get<std::string>());
    }
  }
  if (auto error = status->find("error"); error != status->end() && error->is_string()) {
    result.error = error->get<std::string>();
    if (absl::StrContains(result.error, token)) result.error = "the token is not valid";
  }
  return result;
}

}  // namespace credledger::kubebridge
