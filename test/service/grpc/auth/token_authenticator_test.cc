// TokenAuthenticator (service/grpc/auth/token_authenticator.h): the identity of an accepted
// ServiceAccount token, refusals naming why, and the cache: one review per token for at most
// a minute, never past the token's expiry, ten seconds for a refusal, nothing for a review
// that could not be made, and a bounded number of entries.
#include "service/grpc/auth/token_authenticator.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

constexpr char kDeployer[] = "system:serviceaccount:platform:deployer";

// A token shaped like a JWT whose payload claims `exp` (Unix seconds); the signature is not
// checked here (the review does that).
std::string TokenExpiringAt(absl::Time exp, absl::string_view tag = "a") {
  return absl::StrCat("eyJhbGciOiJSUzI1NiJ9.",
                      absl::WebSafeBase64Escape(absl::StrCat("{\"exp\":", absl::ToUnixSeconds(exp),
                                                             ",\"tag\":\"", tag, "\"}")),
                      ".c2lnbmF0dXJl");
}

class TokenAuthenticatorTest : public ::testing::Test {
 protected:
  TokenAuthenticator::Review Accepting(std::string username = kDeployer) {
    TokenAuthenticator::Review review;
    review.authenticated = true;
    review.username = std::move(username);
    review.audiences = {"credledger"};
    return review;
  }

  TokenAuthenticator Make(TokenAuthenticator::Options options = {}) {
    return TokenAuthenticator(
        [this](const std::string& token,
               const std::string& audience) -> absl::StatusOr<TokenAuthenticator::Review> {
          ++reviews_;
          last_token_ = token;
          last_audience_ = audience;
          return answer_;
        },
        options, &clock_);
  }

  common::FakeClock clock_;
  absl::StatusOr<TokenAuthenticator::Review> answer_ = Accepting();
  int reviews_ = 0;
  std::string last_token_;
  std::string last_audience_;
};

TEST_F(TokenAuthenticatorTest, AnAcceptedServiceAccountTokenNamesItsServiceAccount) {
  TokenAuthenticator tokens = Make();
  const std::string token = TokenExpiringAt(clock_.Now() + absl::Hours(1));
  EXPECT_EQ(tokens.Cached(token), std::nullopt);
  ASSERT_OK_AND_ASSIGN(std::string identity, tokens.Authenticate(token));
  EXPECT_EQ(identity, kDeployer);
  EXPECT_EQ(last_token_, token);
  EXPECT_EQ(last_audience_, "credledger");
  ASSERT_TRUE(tokens.Cached(token).has_value());
  EXPECT_EQ(**tokens.Cached(token), kDeployer);
}

TEST_F(TokenAuthenticatorTest, RefusalsSayWhyAndNeverQuoteTheToken) {
  TokenAuthenticator tokens = Make();
  const std::string token = TokenExpiringAt(clock_.Now() + absl::Hours(1));
  TokenAuthenticator::Review invalidated;
  invalidated.error = "token has been invalidated";
  answer_ = invalidated;
  EXPECT_THAT(tokens.Authenticate(token),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       HasSubstr("the bearer token was refused: \"token has been invalidated\"")));
  clock_.Advance(absl::Seconds(11));
  answer_ = Accepting();
  answer_->audiences = {"https://kubernetes.default.svc"};
  EXPECT_THAT(tokens.Authenticate(token),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       HasSubstr("not for the audience \"credledger\"")));
  clock_.Advance(absl::Seconds(11));
  answer_ = Accepting("jane@example.com");
  absl::StatusOr<std::string> user = tokens.Authenticate(token);
  EXPECT_THAT(user, StatusIs(absl::StatusCode::kUnauthenticated,
                             HasSubstr("not a ServiceAccount's (user \"jane@example.com\")")));
  EXPECT_THAT(std::string(user.status().message()), ::testing::Not(HasSubstr(token)));
}

TEST_F(TokenAuthenticatorTest, AnExpiredTokenIsRefusedWithoutAReview) {
  TokenAuthenticator tokens = Make();
  EXPECT_THAT(tokens.Authenticate(TokenExpiringAt(clock_.Now() - absl::Seconds(1))),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("it has expired")));
  EXPECT_EQ(reviews_, 0);
}

TEST_F(TokenAuthenticatorTest, AnAcceptedTokenIsReviewedOncePerMinute) {
  TokenAuthenticator tokens = Make();
  const std::string token = TokenExpiringAt(clock_.Now() + absl::Hours(1));
  ASSERT_OK(tokens.Authenticate(token));
  clock_.Advance(absl::Seconds(59));
  ASSERT_OK(tokens.Authenticate(token));
  EXPECT_EQ(reviews_, 1);
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(tokens.Cached(token), std::nullopt);
  ASSERT_OK(tokens.Authenticate(token));
  EXPECT_EQ(reviews_, 2);
}

TEST_F(TokenAuthenticatorTest, AnAnswerIsNeverCachedPastTheTokensExpiry) {
  TokenAuthenticator tokens = Make();
  const std::string token = TokenExpiringAt(clock_.Now() + absl::Seconds(20));
  ASSERT_OK(tokens.Authenticate(token));
  clock_.Advance(absl::Seconds(19));
  EXPECT_TRUE(tokens.Cached(token).has_value());
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(tokens.Cached(token), std::nullopt);
  EXPECT_THAT(tokens.Authenticate(token), StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_EQ(reviews_, 1);
}

TEST_F(TokenAuthenticatorTest, ARefusalIsCachedForTenSecondsAndAFailedReviewNotAtAll) {
  TokenAuthenticator tokens = Make();
  const std::string token = TokenExpiringAt(clock_.Now() + absl::Hours(1));
  answer_ = absl::UnavailableError("connection refused");
  EXPECT_THAT(tokens.Authenticate(token),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("token review: connection")));
  EXPECT_EQ(tokens.Cached(token), std::nullopt);
  answer_ = TokenAuthenticator::Review{};
  EXPECT_THAT(tokens.Authenticate(token), StatusIs(absl::StatusCode::kUnauthenticated));
  clock_.Advance(absl::Seconds(9));
  EXPECT_THAT(tokens.Authenticate(token), StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_EQ(reviews_, 2);
  clock_.Advance(absl::Seconds(1));
  answer_ = Accepting();
  EXPECT_OK(tokens.Authenticate(token));
  EXPECT_EQ(reviews_, 3);
}

TEST_F(TokenAuthenticatorTest, TheCacheKeepsAtMostMaxEntriesDroppingTheSoonestToExpire) {
  TokenAuthenticator tokens = Make({.max_entries = 2});
  const std::string soon = TokenExpiringAt(clock_.Now() + absl::Seconds(30), "soon");
  const std::string later = TokenExpiringAt(clock_.Now() + absl::Hours(1), "later");
  const std::string third = TokenExpiringAt(clock_.Now() + absl::Hours(1), "third");
  ASSERT_OK(tokens.Authenticate(soon));
  ASSERT_OK(tokens.Authenticate(later));
  ASSERT_OK(tokens.Authenticate(third));
  EXPECT_EQ(tokens.Cached(soon), std::nullopt);
  EXPECT_TRUE(tokens.Cached(later).has_value());
  EXPECT_TRUE(tokens.Cached(third).has_value());
}

}  // namespace
}  // namespace credledger::service
