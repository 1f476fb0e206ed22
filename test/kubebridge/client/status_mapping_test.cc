#include "kubebridge/client/status_mapping.h"

#include <curl/curl.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::kubebridge {
namespace status_mapping_test {

std::string StatusBody(int code, const std::string& reason, const std::string& message) {
  nlohmann::json body = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                         {"code", code},     {"reason", reason},   {"message", message}};
  return body.dump();
}

struct Case {
  int http_code;
  const char* reason;
  absl::StatusCode want;
};

class StatusMappingTest : public ::testing::TestWithParam<Case> {};

TEST_P(StatusMappingTest, KubernetesStatusBodyMapsToCanonicalCode) {
  const Case& c = GetParam();
  absl::Status status = StatusFromHttpResponse("GET /api/v1/namespaces/a/secrets/x", c.http_code,
                                               StatusBody(c.http_code, c.reason, "details"));
  EXPECT_EQ(status.code(), c.want) << status;
}

INSTANTIATE_TEST_SUITE_P(
    Reasons, StatusMappingTest,
    ::testing::Values(Case{404, "NotFound", absl::StatusCode::kNotFound},
                      Case{409, "AlreadyExists", absl::StatusCode::kAlreadyExists},
                      Case{409, "Conflict", absl::StatusCode::kAborted},
                      Case{403, "Forbidden", absl::StatusCode::kPermissionDenied},
                      Case{401, "Unauthorized", absl::StatusCode::kUnauthenticated},
                      Case{422, "Invalid", absl::StatusCode::kInvalidArgument},
                      Case{400, "BadRequest", absl::StatusCode::kInvalidArgument},
                      Case{410, "Expired", absl::StatusCode::kOutOfRange},
                      Case{410, "Gone", absl::StatusCode::kOutOfRange},
                      Case{429, "TooManyRequests", absl::StatusCode::kUnavailable},
                      Case{500, "InternalError", absl::StatusCode::kUnavailable},
                      Case{503, "ServiceUnavailable", absl::StatusCode::kUnavailable},
                      Case{504, "Timeout", absl::StatusCode::kUnavailable},
                      Case{405, "MethodNotAllowed", absl::StatusCode::kUnimplemented}));

TEST(StatusMappingMessageTest, KeepsRequestReasonAndServerMessage) {
  absl::Status status =
      StatusFromHttpResponse("POST /api/v1/namespaces/a/secrets", 409,
                             StatusBody(409, "AlreadyExists", "secrets \"x\" already exists"));
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(status.message(),
            "POST /api/v1/namespaces/a/secrets: AlreadyExists: secrets \"x\" already exists");
}

TEST(StatusMappingMessageTest, HttpCodeDecidesWithoutAStatusBody) {
  EXPECT_EQ(StatusFromHttpResponse("GET /x", 404, "").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(StatusFromHttpResponse("GET /x", 409, "").code(), absl::StatusCode::kAborted);
  EXPECT_EQ(StatusFromHttpResponse("GET /x", 410, "").code(), kResourceExpiredCode);
  EXPECT_EQ(StatusFromHttpResponse("GET /x", 502, "").code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(StatusFromHttpResponse("GET /x", 418, "").code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(StatusFromHttpResponse("GET /x", 502, "").message(), "GET /x: HTTP 502");
}

TEST(StatusMappingMessageTest, NonStatusBodyIsQuotedShortAndPrintable) {
  std::string body = "<html>bad\ngateway</html>" + std::string(500, 'z');
  absl::Status status = StatusFromHttpResponse("GET /x", 502, body);
  EXPECT_EQ(status.message().substr(0, 40), "GET /x: HTTP 502: <html>bad?gateway</htm");
  EXPECT_EQ(status.message().size(), std::string("GET /x: HTTP 502: ").size() + 200);
}

// Regression: a registered cluster's server echoed the bearer token in its Status message,
// and the probe recorded it in the log.
TEST(StatusMappingMessageTest, ServerFreeMessageDropsWhatTheServerWrote) {
  const absl::Status echoed = StatusFromHttpResponse(
      "GET /version", 403,
      StatusBody(403, "Forbidden", "invalid bearer token Bearer s3cr3t-token\n{\"level\":1}"));
  EXPECT_THAT(std::string(echoed.message()), ::testing::HasSubstr("s3cr3t-token"));
  EXPECT_EQ(ServerFreeMessage(echoed), "GET /version: HTTP 403 Forbidden");
  // A reason that is not a Kubernetes one is the server's text too.
  EXPECT_EQ(ServerFreeMessage(StatusFromHttpResponse(
                "GET /apis", 401, StatusBody(401, "token s3cr3t-token", "x"))),
            "GET /apis: HTTP 401");
  EXPECT_EQ(ServerFreeMessage(StatusFromHttpResponse("GET /x", 502, "<html>token</html>")),
            "GET /x: HTTP 502");
  // Errors of our own (transport, cancellation) keep their message.
  const absl::Status refused = absl::UnavailableError("GET /x: Couldn't connect to server");
  EXPECT_EQ(ServerFreeMessage(refused), "GET /x: Couldn't connect to server");
}

TEST(StatusMappingMessageTest, SuccessCodesAreOk) {
  EXPECT_TRUE(StatusFromHttpResponse("GET /x", 200, "{}").ok());
  EXPECT_TRUE(StatusFromHttpResponse("POST /x", 201, "{}").ok());
}

TEST(StatusMappingMessageTest, WatchErrorEventObjectWithCode410IsExpired) {
  nlohmann::json object = {{"kind", "Status"},
                           {"status", "Failure"},
                           {"code", 410},
                           {"reason", "Expired"},
                           {"message", "too old resource version: 5 (20)"}};
  absl::Status status = StatusFromStatusObject("GET /api/v1/secrets", object, 500);
  EXPECT_TRUE(IsResourceExpired(status));
  EXPECT_EQ(status.message(), "GET /api/v1/secrets: Expired: too old resource version: 5 (20)");
}

TEST(StatusMappingMessageTest, StatusObjectWithoutReasonUsesItsCode) {
  nlohmann::json object = {{"kind", "Status"}, {"code", 410}, {"message", "gone"}};
  absl::Status status = StatusFromStatusObject("GET /w", object, 500);
  EXPECT_TRUE(IsResourceExpired(status));
  EXPECT_EQ(status.message(), "GET /w: HTTP 410: gone");
}

TEST(StatusMappingCurlTest, TransportFailuresAreUnavailable) {
  for (CURLcode code :
       {CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_RECV_ERROR, CURLE_SEND_ERROR,
        CURLE_GOT_NOTHING, CURLE_COULDNT_RESOLVE_HOST, CURLE_SSL_CONNECT_ERROR}) {
    EXPECT_EQ(StatusFromCurlCode("GET /x", code, "").code(), absl::StatusCode::kUnavailable)
        << curl_easy_strerror(code);
  }
}

TEST(StatusMappingCurlTest, CertificateProblemsAreNotRetried) {
  absl::Status status = StatusFromCurlCode("GET /x", CURLE_PEER_FAILED_VERIFICATION,
                                           "SSL certificate problem: unable to get issuer");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "GET /x: SSL certificate problem: unable to get issuer");
}

TEST(StatusMappingCurlTest, AbortByProgressCallbackIsCancelled) {
  EXPECT_EQ(StatusFromCurlCode("GET /x", CURLE_ABORTED_BY_CALLBACK, "").code(),
            absl::StatusCode::kCancelled);
}

}  // namespace status_mapping_test
}  // namespace credledger::kubebridge
