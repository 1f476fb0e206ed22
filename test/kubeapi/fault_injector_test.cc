// Tests of the fault injection seam: error replies with Retry-After, limited firings, exact
// paths and delays.
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace {

using FaultInjectorTest = ApiServerTest;

TEST_F(FaultInjectorTest, ErrorFaultAnswersStatusWithRetryAfterForItsFiringsOnly) {
  Fault fault;
  fault.method = "GET";
  fault.path_prefix = "/api/v1/namespaces/default/secrets";
  fault.status_code = 429;
  fault.retry_after_seconds = 3;
  fault.times = 1;
  server_->faults().Add(fault);
  Reply throttled = Admin().Get("/api/v1/namespaces/default/secrets");
  EXPECT_EQ(throttled.status, 429);
  EXPECT_EQ(throttled.body["reason"], "TooManyRequests");
  EXPECT_EQ(throttled.body["details"]["retryAfterSeconds"], 3);
  auto retry_after = throttled.headers.find("Retry-After");
  ASSERT_NE(retry_after, throttled.headers.end());
  EXPECT_EQ(retry_after->second, "3");
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default/secrets").status, 200);
  EXPECT_EQ(server_->faults().fired(), 1);
}

TEST_F(FaultInjectorTest, FaultMatchesMethodAndPathPrefix) {
  Fault fault;
  fault.method = "POST";
  fault.path_prefix = "/api/v1/namespaces/default";
  fault.status_code = 503;
  server_->faults().Add(fault);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default/secrets").status, 200);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/kube-system/secrets").status, 200);
  Reply reply = Admin().Post("/api/v1/namespaces/default/configmaps",
                             {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}});
  EXPECT_EQ(reply.status, 503);
  EXPECT_EQ(reply.body["reason"], "ServiceUnavailable");
  server_->faults().Clear();
  EXPECT_EQ(Admin().Post("/api/v1/namespaces/default/configmaps",
                         {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}})
                .status,
            201);
}

TEST_F(FaultInjectorTest, ExactPathFaultSparesThePathsBelowIt) {
  Fault fault;
  fault.method = "GET";
  fault.path_prefix = "/api/v1/namespaces";
  fault.exact_path = true;
  fault.status_code = 503;
  server_->faults().Add(fault);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces").status, 503);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces?watch=1&timeoutSeconds=1").status, 503);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default").status, 200);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default/secrets").status, 200);
  EXPECT_EQ(server_->faults().fired(), 2);
}

TEST_F(FaultInjectorTest, DelayFaultDelaysThenServes) {
  Fault fault;
  fault.path_prefix = "/version";
  fault.delay = absl::Milliseconds(300);
  fault.times = 1;
  server_->faults().Add(fault);
  absl::Time start = absl::Now();
  EXPECT_EQ(As("").Get("/version").status, 200);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
}

}  // namespace
}  // namespace credledger::kubeapi::testing
