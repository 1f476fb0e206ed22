// Readiness: checks in order, gates that open, and the first failure as the reason.
#include "service/server/readiness.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace readiness_test {

using ::credledger::testing::StatusIs;

TEST(ReadinessTest, NoChecksMeansReady) {
  Readiness readiness;
  EXPECT_OK(readiness.Evaluate());
}

TEST(ReadinessTest, GatesFailWithTheirReasonUntilOpenedAndTheFirstFailureIsReported) {
  Readiness readiness;
  readiness.AddGate("log", "opening the log");
  readiness.AddGate("grpc", "starting gRPC");
  EXPECT_THAT(readiness.Evaluate(),
              StatusIs(absl::StatusCode::kUnavailable, "log: opening the log"));
  readiness.OpenGate("grpc");
  EXPECT_THAT(readiness.Evaluate(),
              StatusIs(absl::StatusCode::kUnavailable, "log: opening the log"));
  readiness.OpenGate("log");
  EXPECT_OK(readiness.Evaluate());
  readiness.OpenGate("no-such-gate");
  EXPECT_OK(readiness.Evaluate());
}

TEST(ReadinessTest, ANamedCheckIsEvaluatedAtEachCall) {
  Readiness readiness;
  bool held = false;
  readiness.AddCheck("lease", [&held] {
    return held ? absl::OkStatus() : absl::FailedPreconditionError("the lease is not held");
  });
  EXPECT_THAT(readiness.Evaluate(),
              StatusIs(absl::StatusCode::kUnavailable, "lease: the lease is not held"));
  held = true;
  EXPECT_OK(readiness.Evaluate());
}

TEST(ReadinessTest, ANoticeNeverMakesTheServiceUnreadyAndIsListedWhileItApplies) {
  Readiness readiness;
  bool low = true;
  readiness.AddNotice("space", [&low] {
    return low ? absl::ResourceExhaustedError("reports are refused") : absl::OkStatus();
  });
  EXPECT_OK(readiness.Evaluate());
  EXPECT_THAT(readiness.Notices(), ::testing::ElementsAre("space: reports are refused"));
  low = false;
  EXPECT_THAT(readiness.Notices(), ::testing::IsEmpty());
}

}  // namespace readiness_test
}  // namespace credledger::service
