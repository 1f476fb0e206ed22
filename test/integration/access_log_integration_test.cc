// The access log and call request ids (docs/operations.md, "Access log"; docs/api.md,
// "Call request ids") on a real Server over a real gRPC channel, with common::Log captured in
// this process: one line per call, unary or streaming, OK or failed, refused or from another
// service than ours; the x-request-id kept, generated or replaced and always sent back; none
// with --access-log=false; and the CLI's id in its error message.
#include <grpcpp/generic/generic_stub.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "service/credledger_main.h"
#include "test/integration/api_fixture.h"
#include "test/support/captured_log.h"

namespace credledger::testing {
namespace access_log_integration_test {

using ::testing::MatchesRegex;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr char kRpcLine[] = "rpc";
constexpr char kRegisterRpc[] = "/credledger.v1.TargetService/RegisterTarget";
constexpr char kGetTargetRpc[] = "/credledger.v1.TargetService/GetTarget";
constexpr char kWatchTargetsRpc[] = "/credledger.v1.TargetService/WatchTargets";
constexpr char kGeneratedId[] = "[0-9a-f]{16}";
// Only reached when a test fails.
constexpr absl::Duration kAccessLineWait = absl::Seconds(20);

// Every value of `key` in `metadata`.
std::vector<std::string> ValuesOf(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
                                  const std::string& key) {
  std::vector<std::string> values;
  auto [begin, end] = metadata.equal_range(key);
  for (auto it = begin; it != end; ++it) values.emplace_back(it->second.data(), it->second.size());
  return values;
}

class AccessLogIntegrationTest : public ApiFixture {
 protected:
  void Configure(service::ServeOptions& options) override { options.grpc.access_log = access_log_; }

  // The access-log lines of `rpc` so far.
  std::vector<nlohmann::json> LinesOf(const std::string& rpc) {
    std::vector<nlohmann::json> lines;
    for (nlohmann::json& line : log_.Lines(kRpcLine)) {
      if (line.value("rpc", "") == rpc) lines.push_back(std::move(line));
    }
    return lines;
  }
  // Waits until `rpc` has `count` lines; returns its lines then.
  // Runs the CLI with `args` against the server and expects it to fail with stderr
  // `<error_pattern> (call request id <id>)`, and the server's one line for `rpc` to carry that
  // id: the id the CLI made up reached the server (a server-made one would differ).
  void ExpectCliFailure(std::vector<std::string> args, const std::string& error_pattern,
                        const std::string& rpc) {
    args.push_back("--server");
    args.push_back(server_->address());
    std::ostringstream out, err;
    EXPECT_EQ(service::CredledgerMain(args, out, err), 1);
    std::smatch match;
    const std::string text = err.str();
    ASSERT_TRUE(
        std::regex_match(text, match, std::regex(error_pattern + " \\(call request id ([^ ]+)\\)\n")))
        << text;
    const std::vector<nlohmann::json> lines = AwaitLinesOf(rpc, 1);
    ASSERT_THAT(lines, SizeIs(1));
    EXPECT_EQ(lines[0]["request_id"], match[1].str());
  }

  std::vector<nlohmann::json> AwaitLinesOf(const std::string& rpc, size_t count) {
    log_.WaitFor(
        kRpcLine,
        [&](const std::vector<nlohmann::json>& lines) {
          size_t seen = 0;
          for (const nlohmann::json& line : lines) seen += line.value("rpc", "") == rpc;
          return seen >= count;
        },
        kAccessLineWait);
    return LinesOf(rpc);
  }

  // GetTarget demo/`name` as alice, with `request_id` as x-request-id unless empty; fills
  // `context` (for its metadata).
  grpc::Status GetTarget(const std::string& name, const std::string& request_id,
                         grpc::ClientContext& context) {
    context.AddMetadata("credledger-actor", "alice");
    if (!request_id.empty()) context.AddMetadata("x-request-id", request_id);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::GetTargetRequest request;
    request.set_namespace_("demo");
    request.set_name(name);
    v1::GetTargetResponse response;
    return stub_->GetTarget(&context, request, &response);
  }

  // Before the fixture's server starts, so that its every line is captured.
  CapturedLog log_;
  bool access_log_ = true;
};

TEST_F(AccessLogIntegrationTest, GivenIdIsLoggedOnceWithTheCommandRequestIdAndSentBack) {
  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "alice");
  context.AddMetadata("x-request-id", "ci-run-42/step:3");
  v1::RegisterTargetRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("reg-1");
  v1::RegisterTargetResponse response;
  const grpc::Status status = stub_->RegisterTarget(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(ValuesOf(context.GetServerInitialMetadata(), "x-request-id"),
            std::vector<std::string>{"ci-run-42/step:3"});
  EXPECT_EQ(ValuesOf(context.GetServerTrailingMetadata(), "x-request-id"),
            std::vector<std::string>{"ci-run-42/step:3"});

  const std::vector<nlohmann::json> lines = AwaitLinesOf(kRegisterRpc, 1);
  ASSERT_THAT(lines, SizeIs(1));
  const nlohmann::json& line = lines[0];
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["request_id"], "ci-run-42/step:3");
  EXPECT_EQ(line["command_request_id"], "reg-1");
  EXPECT_EQ(line["identity"], "declared:alice");
  EXPECT_EQ(line["code"], "OK");
  EXPECT_THAT(line.value("peer", ""), StartsWith("ipv4:127.0.0.1:"));
  double duration_ms = -1;
  EXPECT_TRUE(absl::SimpleAtod(line.value("duration_ms", ""), &duration_ms)) << line;
  EXPECT_GE(duration_ms, 0);
  EXPECT_FALSE(line.contains("error"));
}

TEST_F(AccessLogIntegrationTest, FailedCallLogsItsCodeAndErrorAndTheIdComesBack) {
  grpc::ClientContext context;
  const grpc::Status status = GetTarget("ghost", "lookup-1", context);
  ASSERT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  // The answer has no message: the id must reach the client in the trailers.
  EXPECT_EQ(ValuesOf(context.GetServerTrailingMetadata(), "x-request-id"),
            std::vector<std::string>{"lookup-1"});

  const std::vector<nlohmann::json> lines = AwaitLinesOf(kGetTargetRpc, 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["request_id"], "lookup-1");
  EXPECT_EQ(lines[0]["code"], "NOT_FOUND");
  EXPECT_EQ(lines[0]["error"], status.error_message());
  EXPECT_EQ(lines[0]["level"], "info");
  EXPECT_FALSE(lines[0].contains("command_request_id"));  // GetTarget has no request_id
}

TEST_F(AccessLogIntegrationTest, CallWithoutIdGetsAGeneratedOneThatMatchesItsLine) {
  grpc::ClientContext context;
  ASSERT_EQ(GetTarget("ghost", "", context).error_code(), grpc::StatusCode::NOT_FOUND);
  const std::vector<std::string> sent_back =
      ValuesOf(context.GetServerTrailingMetadata(), "x-request-id");
  ASSERT_THAT(sent_back, SizeIs(1));
  EXPECT_THAT(sent_back[0], MatchesRegex(kGeneratedId));

  const std::vector<nlohmann::json> lines = AwaitLinesOf(kGetTargetRpc, 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["request_id"], sent_back[0]);
}

TEST_F(AccessLogIntegrationTest, InvalidIdIsReplacedNotEchoed) {
  const std::vector<std::string> invalid = {"two words", std::string(129, 'x')};
  for (const std::string& sent : invalid) {
    grpc::ClientContext context;
    ASSERT_EQ(GetTarget("ghost", sent, context).error_code(), grpc::StatusCode::NOT_FOUND);
    const std::vector<std::string> sent_back =
        ValuesOf(context.GetServerTrailingMetadata(), "x-request-id");
    ASSERT_THAT(sent_back, SizeIs(1));
    EXPECT_THAT(sent_back[0], MatchesRegex(kGeneratedId));
  }
  const std::vector<nlohmann::json> lines = AwaitLinesOf(kGetTargetRpc, invalid.size());
  ASSERT_THAT(lines, SizeIs(invalid.size()));
  for (const nlohmann::json& line : lines) {
    EXPECT_THAT(line.value("request_id", ""), MatchesRegex(kGeneratedId));
  }
}

TEST_F(AccessLogIntegrationTest, RefusedCallIsLoggedUnderTheCallersIdentity) {
  RestartWithPolicy(
      "identities:\n  - name: alice\n    rpcs: [\"TargetService/*\"]\n    allow_declared: true\n");
  v1::RevokeRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("revoke-1");
  v1::RevokeResponse response;
  const grpc::Status status =
      Call(&v1::TargetService::Stub::Revoke, request, &response, /*actor=*/"mallory");
  ASSERT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);

  const std::vector<nlohmann::json> lines = AwaitLinesOf("/credledger.v1.TargetService/Revoke", 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["identity"], "declared:mallory");
  EXPECT_EQ(lines[0]["code"], "PERMISSION_DENIED");
  EXPECT_EQ(lines[0]["command_request_id"], "revoke-1");
  EXPECT_EQ(lines[0]["error"], status.error_message());
}

TEST_F(AccessLogIntegrationTest, WatchCancelledByTheClientLogsOneLineWhenItEnds) {
  grpc::ClientContext context;
  context.AddMetadata("x-request-id", "watch-1");
  std::unique_ptr<grpc::ClientReader<v1::WatchTargetsResponse>> reader =
      stub_->WatchTargets(&context, v1::WatchTargetsRequest());
  v1::WatchTargetsResponse item;
  ASSERT_TRUE(reader->Read(&item));  // the snapshot's end: the call is running
  EXPECT_EQ(ValuesOf(context.GetServerInitialMetadata(), "x-request-id"),
            std::vector<std::string>{"watch-1"});
  EXPECT_THAT(LinesOf(kWatchTargetsRpc), SizeIs(0));

  context.TryCancel();
  while (reader->Read(&item)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  const std::vector<nlohmann::json> lines = AwaitLinesOf(kWatchTargetsRpc, 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["request_id"], "watch-1");
  EXPECT_EQ(lines[0]["code"], "CANCELLED");
  EXPECT_EQ(lines[0]["identity"], "anonymous");
}

TEST_F(AccessLogIntegrationTest, WatchEndedByShutdownIsLoggedAsAWarning) {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::WatchTargetsResponse>> reader =
      stub_->WatchTargets(&context, v1::WatchTargetsRequest());
  v1::WatchTargetsResponse item;
  ASSERT_TRUE(reader->Read(&item));
  server_->Shutdown();
  while (reader->Read(&item)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  const std::vector<nlohmann::json> lines = AwaitLinesOf(kWatchTargetsRpc, 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["code"], "UNAVAILABLE");
  EXPECT_EQ(lines[0]["level"], "warning");
}

// Calls `method` with an empty request message and id `request_id` through a generic stub;
// returns its status.
grpc::Status CallGeneric(const std::shared_ptr<grpc::Channel>& channel, const std::string& method,
                         const std::string& request_id, const std::string& body = "") {
  grpc::GenericStub generic(channel);
  grpc::Slice bytes(body);
  grpc::ByteBuffer request(&bytes, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.AddMetadata("x-request-id", request_id);
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  absl::Notification done;
  grpc::Status status;
  generic.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                    [&](grpc::Status s) {
                      status = std::move(s);
                      done.Notify();
                    });
  if (!done.WaitForNotificationWithTimeout(kAccessLineWait)) {
    context.TryCancel();
    done.WaitForNotification();
  }
  return status;
}

TEST_F(AccessLogIntegrationTest, CallsOfOtherServicesAreLoggedToo) {
  // grpc.health.v1.HealthCheckRequest{} (empty message).
  const grpc::Status status = CallGeneric(channel_, "/grpc.health.v1.Health/Check", "probe-1");
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::vector<nlohmann::json> lines = AwaitLinesOf("/grpc.health.v1.Health/Check", 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["request_id"], "probe-1");
  EXPECT_EQ(lines[0]["code"], "OK");
}

TEST_F(AccessLogIntegrationTest, MethodTheServerDoesNotServeIsLoggedWithAnError) {
  const std::string method = "/credledger.v1.TargetService/NoSuchMethod";
  const grpc::Status status = CallGeneric(channel_, method, "probe-2");
  ASSERT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << status.error_message();
  const std::vector<nlohmann::json> lines = AwaitLinesOf(method, 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["code"], "UNIMPLEMENTED");
  EXPECT_EQ(lines[0]["error"], "no such RPC on this server");
}

// Regression: a request whose message does not parse (gRPC then answers INTERNAL) was
// logged at error with "(no message)", as if the service had failed.
TEST_F(AccessLogIntegrationTest, ARequestThatDoesNotParseIsLoggedAsAWarning) {
  const std::string method = "/credledger.v1.TargetService/GetTarget";
  const grpc::Status status = CallGeneric(channel_, method, "garbage-1", "\xff\xff\xff\xff");
  ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  const std::vector<nlohmann::json> lines = AwaitLinesOf(method, 1);
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["level"], "warning");
  EXPECT_EQ(lines[0]["code"], "INVALID_ARGUMENT");
  EXPECT_THAT(std::string(lines[0]["error"]),
              ::testing::HasSubstr("request: the bytes do not parse as the request of " + method));
}

// Regression: every refused call wrote an access-log line of its own, so a flood of refused
// calls wrote without bound (712k calls in 130 s, 257 MB). Now a peer's first refusal in an
// interval is written, the others summed up once the interval ends (here at shutdown).
TEST_F(AccessLogIntegrationTest, RefusedCallsAreWrittenOncePerPeerAndIntervalAndSummedUp) {
  RestartWithPolicy("identities:\n  - name: alice\n    rpcs: [\"TargetService/GetTarget\"]\n");
  constexpr int kCalls = 300;
  v1::RevokeRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("revoke-1");
  for (int i = 0; i < kCalls; ++i) {
    v1::RevokeResponse response;
    ASSERT_EQ(Call(&v1::TargetService::Stub::Revoke, request, &response, "mallory").error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  server_->Shutdown();
  // Lines are written before the status is sent: all are there. One line, or two when the
  // calls straddled the end of an interval.
  const size_t written = LinesOf("/credledger.v1.TargetService/Revoke").size();
  EXPECT_GE(written, 1u);
  EXPECT_LE(written, 2u);
  int64_t summed_up = 0;
  for (const nlohmann::json& line : log_.Lines("rpc refused, repeated")) {
    EXPECT_EQ(line["peer"], "ipv4:127.0.0.1");
    EXPECT_EQ(line["kinds"], absl::StrCat("/credledger.v1.TargetService/Revoke PERMISSION_DENIED: ",
                                          line["count"].get<std::string>()));
    int64_t count = 0;
    EXPECT_TRUE(absl::SimpleAtoi(line["count"].get<std::string>(), &count));
    summed_up += count;
  }
  EXPECT_EQ(static_cast<int64_t>(written) + summed_up, kCalls);
}

class AccessLogOffTest : public AccessLogIntegrationTest {
 protected:
  AccessLogOffTest() { access_log_ = false; }
};

TEST_F(AccessLogOffTest, AccessLogOffWritesNoLineAndSendsNoId) {
  grpc::ClientContext context;
  ASSERT_EQ(GetTarget("ghost", "lookup-1", context).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(ValuesOf(context.GetServerTrailingMetadata(), "x-request-id"), SizeIs(0));
  // With the log on, the line is written before the status is sent (the test above); so none
  // has been written now, and none will be.
  EXPECT_THAT(log_.Lines(kRpcLine), SizeIs(0));
}

TEST_F(AccessLogIntegrationTest, CliSendsAnIdAndPrintsItWhenTheCallFails) {
  ExpectCliFailure({"target", "get", "demo/ghost"},
                   "error: NOT_FOUND: target \"demo/ghost\": not found", kGetTargetRpc);
}

TEST_F(AccessLogIntegrationTest, CliWatchPrintsTheIdWhenTheStreamFails) {
  ExpectCliFailure({"target", "watch", "--namespace", "Not_A_Label"}, "error: INVALID_ARGUMENT: .*",
                   kWatchTargetsRpc);
}

TEST_F(AccessLogIntegrationTest, CliExportPrintsTheIdWhenTheStreamFails) {
  ExpectCliFailure({"export", "--type", "NoSuchEvent"}, "error: INVALID_ARGUMENT: .*",
                   "/credledger.v1.AuditService/ExportEvents");
}

}  // namespace access_log_integration_test
}  // namespace credledger::testing
