#include "service/grpc/auth/token_authenticator.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/dns_label.h"
#include "common/quote_cut.h"
#include "common/sha256.h"
#include "nlohmann/json.hpp"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

// Longest part of a refusal reason from the cluster quoted in an error.
constexpr size_t kShownReasonBytes = 200;

std::string KeyOf(absl::string_view token) {
  const common::Sha256Bytes digest = common::Sha256Of(token);
  return common::HexEncode(
      absl::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

// The `exp` claim of a JWT's payload; nullopt when `token` is no JWT or has none.
std::optional<absl::Time> ExpiryOf(absl::string_view token) {
  const std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3) return std::nullopt;
  std::string payload;
  if (!absl::WebSafeBase64Unescape(parts[1], &payload)) return std::nullopt;
  const nlohmann::json claims = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!claims.is_object()) return std::nullopt;
  const auto exp = claims.find("exp");
  if (exp == claims.end() || !exp->is_number_integer()) return std::nullopt;
  return absl::FromUnixSeconds(exp->get<int64_t>());
}

absl::Status Refused(absl::string_view why) {
  return absl::UnauthenticatedError(absl::StrCat("the bearer token was refused: ", why));
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(ReviewFunction review, Options options, common::Clock* clock)
    : review_(std::move(review)), options_(std::move(options)), clock_(clock) {}

std::optional<absl::StatusOr<std::string>> TokenAuthenticator::Cached(
    absl::string_view token) const {
  return CachedByKey(KeyOf(token));
}

std::optional<absl::StatusOr<std::string>> TokenAuthenticator::CachedByKey(
    const std::string& key) const {
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mu_);
  const auto it = cache_.find(key);
  if (it == cache_.end() || it->second.expires <= now) return std::nullopt;
  return it->second.identity;
}

absl::StatusOr<std::string> TokenAuthenticator::Authenticate(absl::string_view token) {
  std::string key = KeyOf(token);
  if (std::optional<absl::StatusOr<std::string>> cached = CachedByKey(key); cached.has_value()) {
    return *std::move(cached);
  }
  const absl::Time now = clock_->Now();
  const std::optional<absl::Time> exp = ExpiryOf(token);
  if (exp.has_value() && *exp <= now) return Refused("it has expired");
  absl::StatusOr<Review> review = review_(std::string(token), options_.audience);
  if (!review.ok()) {
    return absl::Status(review.status().code(),
                        absl::StrCat("token review: ", review.status().message()));
  }
  absl::StatusOr<std::string> identity = IdentityOf(*review);
  absl::Time expires = now + (identity.ok() ? options_.max_age : options_.refusal_age);
  if (identity.ok() && exp.has_value()) expires = std::min(expires, *exp);
  absl::MutexLock lock(&mu_);
  Store(std::move(key), identity, expires);
  return identity;
}

absl::StatusOr<std::string> TokenAuthenticator::IdentityOf(const Review& review) const {
  if (!review.authenticated) {
    return Refused(review.error.empty() ? "the cluster does not accept it"
                                        : common::QuoteCut(review.error, kShownReasonBytes));
  }
  if (std::find(review.audiences.begin(), review.audiences.end(), options_.audience) ==
      review.audiences.end()) {
    return Refused(absl::StrCat("it is not for the audience \"", options_.audience,
                                "\" (request a projected token with that audience)"));
  }
  absl::string_view rest = review.username;
  const std::vector<absl::string_view> parts = absl::ConsumePrefix(&rest, kServiceAccountUserPrefix)
                                                   ? absl::StrSplit(rest, ':')
                                                   : std::vector<absl::string_view>{};
  if (parts.size() != 2 || !common::ValidateDnsLabel("namespace", parts[0]).ok() ||
      !common::ValidateDnsSubdomain("name", parts[1]).ok()) {
    return Refused(absl::StrCat("it is not a ServiceAccount's (user ",
                                common::QuoteCut(review.username, kShownReasonBytes), ")"));
  }
  return review.username;
}

void TokenAuthenticator::Store(std::string key, absl::StatusOr<std::string> identity,
                               absl::Time expires) {
  if (cache_.size() >= options_.max_entries) {
    const absl::Time now = clock_->Now();
    std::erase_if(cache_, [now](const auto& entry) { return entry.second.expires <= now; });
  }
  if (cache_.size() >= options_.max_entries) {
    cache_.erase(std::min_element(cache_.begin(), cache_.end(), [](const auto& a, const auto& b) {
      return a.second.expires < b.second.expires;
    }));
  }
  cache_.insert_or_assign(std::move(key), Entry{std::move(identity), expires});
}

}  // namespace credledger::service
