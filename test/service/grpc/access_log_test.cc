// The access-log line (access_log.h) and call request ids (request_id.h), without gRPC: the
// fields, the level per code, the caps on logged text, the id rule and the error suffix the
// CLI prints.
#include "service/grpc/access_log.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/wire/request_id.h"
#include "test/support/captured_log.h"

namespace credledger::service {
namespace {

using ::credledger::testing::CapturedLog;
using ::testing::MatchesRegex;

CallRecord LoggedRevokeCall() {
  CallRecord call;
  call.rpc = "/credledger.v1.TargetService/Revoke";
  call.request_id = "req-7";
  call.command_request_id = "op-1";
  call.peer = "ipv4:127.0.0.1:50312";
  call.identity = "alice";
  call.duration = absl::Microseconds(1234567);
  return call;
}

// The one access-log line LogCall writes for `call`.
nlohmann::json AccessLineOf(const CallRecord& call) {
  CapturedLog log;
  LogCall(call);
  const std::vector<nlohmann::json> lines = log.Lines(kAccessLogMessage);
  EXPECT_EQ(lines.size(), 1u);
  return lines.empty() ? nlohmann::json() : lines[0];
}

TEST(AccessLogTest, OkCallLogsEveryFieldButTheError) {
  const nlohmann::json line = AccessLineOf(LoggedRevokeCall());
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["msg"], "rpc");
  EXPECT_EQ(line["rpc"], "/credledger.v1.TargetService/Revoke");
  EXPECT_EQ(line["request_id"], "req-7");
  EXPECT_EQ(line["command_request_id"], "op-1");
  EXPECT_EQ(line["peer"], "ipv4:127.0.0.1:50312");
  EXPECT_EQ(line["identity"], "alice");
  EXPECT_EQ(line["code"], "OK");
  EXPECT_EQ(line["duration_ms"], "1234.567");
  EXPECT_FALSE(line.contains("error"));
}

TEST(AccessLogTest, FailedCallLogsItsCodeNameAndError) {
  CallRecord call = LoggedRevokeCall();
  call.code = absl::StatusCode::kPermissionDenied;
  call.error = "alice may not call TargetService/Revoke";
  const nlohmann::json line = AccessLineOf(call);
  EXPECT_EQ(line["code"], "PERMISSION_DENIED");
  EXPECT_EQ(line["error"], "alice may not call TargetService/Revoke");
  EXPECT_EQ(line["level"], "info");
}

TEST(AccessLogTest, UnimplementedWithoutMessageSaysTheServerHasNoSuchRpc) {
  CallRecord call = LoggedRevokeCall();
  call.rpc = "/credledger.v1.TargetService/NoSuchMethod";
  call.code = absl::StatusCode::kUnimplemented;
  call.error.clear();
  const nlohmann::json line = AccessLineOf(call);
  EXPECT_EQ(line["code"], "UNIMPLEMENTED");
  EXPECT_EQ(line["error"], "no such RPC on this server");
}

TEST(AccessLogTest, FailureWithoutMessageSaysSoInsteadOfAnEmptyError) {
  CallRecord call = LoggedRevokeCall();
  call.code = absl::StatusCode::kCancelled;
  call.error.clear();
  EXPECT_EQ(AccessLineOf(call)["error"], "(no message)");
}

TEST(AccessLogTest, RequestWithoutRequestIdFieldHasNoCommandRequestId) {
  CallRecord call = LoggedRevokeCall();
  call.rpc = "/credledger.v1.TargetService/GetTarget";
  call.command_request_id.clear();
  EXPECT_FALSE(AccessLineOf(call).contains("command_request_id"));
}

TEST(AccessLogTest, ServiceFaultsAreErrorsUnavailableIsAWarningTheRestIsInfo) {
  const std::set<absl::StatusCode> errors = {
      absl::StatusCode::kInternal, absl::StatusCode::kUnknown, absl::StatusCode::kDataLoss};
  for (int number = 0; number <= 16; ++number) {
    const auto code = static_cast<absl::StatusCode>(number);
    const common::LogLevel expected = errors.count(code) > 0 ? common::LogLevel::kError
                                      : code == absl::StatusCode::kUnavailable
                                          ? common::LogLevel::kWarning
                                          : common::LogLevel::kInfo;
    EXPECT_EQ(AccessLogLevel(code), expected) << absl::StatusCodeToString(code);
  }
  CallRecord call = LoggedRevokeCall();
  call.code = absl::StatusCode::kDataLoss;
  EXPECT_EQ(AccessLineOf(call)["level"], "error");
  call.code = absl::StatusCode::kUnavailable;
  EXPECT_EQ(AccessLineOf(call)["level"], "warning");
}

TEST(AccessLogTest, ARequestThatDidNotParseIsAWarningSayingSo) {
  CallRecord call = LoggedRevokeCall();
  call.code = absl::StatusCode::kInternal;
  call.unparsed_request = true;
  const nlohmann::json line = AccessLineOf(call);
  EXPECT_EQ(line["level"], "warning");
  EXPECT_EQ(line["error"], kUnparsedRequestError);
}

TEST(AccessLogTest, RefusalsAreCountedPerPeerAddressWithoutItsPort) {
  EXPECT_TRUE(IsRefusal(absl::StatusCode::kPermissionDenied));
  EXPECT_TRUE(IsRefusal(absl::StatusCode::kUnauthenticated));
  EXPECT_FALSE(IsRefusal(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(PeerAddress("ipv4:10.1.2.3:50312"), "ipv4:10.1.2.3");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:50312"), "ipv6:[::1]");
  EXPECT_EQ(PeerAddress("ipv6:[::1]"), "ipv6:[::1]");
  EXPECT_EQ(PeerAddress("unix:/run/credledger.sock"), "unix:/run/credledger.sock");
  EXPECT_EQ(PeerAddress("ipv4:"), "ipv4:");
}

TEST(AccessLogTest, ErrorOfTheCapIsKeptWhole) {
  CallRecord call = LoggedRevokeCall();
  call.code = absl::StatusCode::kInvalidArgument;
  call.error = std::string(kMaxLoggedErrorBytes, 'e');
  EXPECT_EQ(AccessLineOf(call)["error"], call.error);
}

TEST(AccessLogTest, LongerErrorIsCutBeforeTheCharacterTheCapSplits) {
  CallRecord call = LoggedRevokeCall();
  call.code = absl::StatusCode::kInvalidArgument;
  // "é" takes bytes 511 and 512: the cap would split it, so the cut drops it whole.
  call.error = std::string(kMaxLoggedErrorBytes - 1, 'e') + "\xc3\xa9" + "tail";
  EXPECT_EQ(AccessLineOf(call)["error"], std::string(kMaxLoggedErrorBytes - 1, 'e') + "...");
}

TEST(AccessLogTest, LongCommandRequestIdIsCut) {
  CallRecord call = LoggedRevokeCall();
  call.command_request_id = std::string(kMaxLoggedCommandRequestIdBytes + 50, 'r');
  EXPECT_EQ(AccessLineOf(call)["command_request_id"],
            std::string(kMaxLoggedCommandRequestIdBytes, 'r') + "...");
}

TEST(CallRequestIdTest, PrintableAsciiWithoutSpacesUpToTheLimitIsValid) {
  EXPECT_TRUE(IsValidCallRequestId("a"));
  EXPECT_TRUE(IsValidCallRequestId("ci-run/42:step_3"));
  EXPECT_TRUE(IsValidCallRequestId(std::string(kMaxCallRequestIdBytes, '~')));
  EXPECT_FALSE(IsValidCallRequestId(""));
  EXPECT_FALSE(IsValidCallRequestId(std::string(kMaxCallRequestIdBytes + 1, 'a')));
  EXPECT_FALSE(IsValidCallRequestId("two words"));
  EXPECT_FALSE(IsValidCallRequestId("tab\there"));
  EXPECT_FALSE(IsValidCallRequestId("del\x7f"));
  EXPECT_FALSE(IsValidCallRequestId("caf\xc3\xa9"));
}

TEST(CallRequestIdTest, GeneratedIdsAreSixteenHexDigitsAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = NewCallRequestId();
    ASSERT_THAT(id, MatchesRegex("[0-9a-f]{16}"));
    EXPECT_TRUE(IsValidCallRequestId(id));
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(CallRequestIdTest, FailureEndsWithTheIdAndKeepsItsCode) {
  const absl::Status failed =
      WithCallRequestId(absl::NotFoundError("target \"demo/ghost\": not found"), "4f6c");
  EXPECT_EQ(failed.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(failed.message(), "target \"demo/ghost\": not found (call request id 4f6c)");
  EXPECT_TRUE(WithCallRequestId(absl::OkStatus(), "4f6c").ok());
}

}  // namespace
}  // namespace credledger::service
