// The agent against the test API server on a fake clock of its own (docs/reports.md, "Clock
// skew"): it compares each pushed lastReportTime with the API server's clock (the Date of
// the response) and logs one line when its clock starts running more than 5 minutes ahead,
// naming the offset and the fix, and one when it is back within the limit; never one per
// push, and nothing while within the limit or behind.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/agent/report_agent.h"
#include "kubebridge/credentials/agent_objects.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/support/captured_log.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace report_agent_clock_test {

using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kNs[] = "demo";
constexpr char kTarget[] = "edge-1";
constexpr absl::Duration kInterval = absl::Seconds(30);
constexpr absl::Duration kMaxReportAge = absl::Minutes(5);  // the default: ten intervals
constexpr char kAheadLine[] =
    "the agent's clock runs ahead of the API server's; credledger refuses reports more than 5m "
    "ahead";
constexpr char kBackLine[] =
    "the agent's clock is within 5m of the API server's again; credledger accepts its reports";

class ReportAgentClockTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.clock = &server_clock_;
    options.namespaces = {kNs};
    StartServer(options);
    ASSERT_OK(
        client_->Create(TargetReportResource(kNs), TargetReportObject(kNs, kTarget)).status());
  }

  // An agent whose clock is `agent_clock`.
  std::unique_ptr<ReportAgent> NewAgent(common::Clock* agent_clock) {
    return std::make_unique<ReportAgent>(
        client_.get(), client_.get(), agent_clock,
        ReportAgentOptions{.target_namespace = kNs, .target_name = kTarget, .interval = kInterval});
  }

  // One tick that writes the TargetReport.
  void Push(ReportAgent& agent) {
    ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent.Tick());
    ASSERT_EQ(outcome, TickOutcome::kPushed);
  }

  ::credledger::testing::CapturedLog log_;
  common::FakeClock server_clock_;  // 2026-01-01T00:00:00Z
};

TEST_F(ReportAgentClockTest, AClockAheadIsLoggedOnceWithTheOffsetAndTheFixAndItsEndOnce) {
  common::FakeClock agent_clock(server_clock_.Now() + absl::Minutes(10));
  std::unique_ptr<ReportAgent> agent = NewAgent(&agent_clock);
  Push(*agent);
  std::vector<nlohmann::json> ahead = log_.Lines(kAheadLine);
  ASSERT_THAT(ahead, SizeIs(1));
  EXPECT_EQ(ahead[0].value("level", ""), "warning");
  EXPECT_EQ(ahead[0].value("targetReport", ""), "demo/edge-1");
  EXPECT_EQ(ahead[0].value("offset", ""), "10m");
  EXPECT_EQ(ahead[0].value("lastReportTime", ""), "2026-01-01T00:10:00Z");
  EXPECT_EQ(ahead[0].value("apiServerTime", ""), "2026-01-01T00:00:00Z");
  EXPECT_EQ(ahead[0].value("fix", ""), "sync this node's clock (for example with NTP)");

  // Every later push while ahead: no further line.
  for (int push = 0; push < 3; ++push) {
    server_clock_.Advance(kMaxReportAge);
    agent_clock.Advance(kMaxReportAge);
    Push(*agent);
  }
  EXPECT_THAT(log_.Lines(kAheadLine), SizeIs(1));
  EXPECT_THAT(log_.Lines(kBackLine), IsEmpty());

  // The node's clock is synced: one line, once.
  server_clock_.Advance(absl::Minutes(10) + kMaxReportAge);
  agent_clock.Advance(kMaxReportAge);
  Push(*agent);
  server_clock_.Advance(kMaxReportAge);
  agent_clock.Advance(kMaxReportAge);
  Push(*agent);
  const std::vector<nlohmann::json> back = log_.Lines(kBackLine);
  ASSERT_THAT(back, SizeIs(1));
  EXPECT_EQ(back[0].value("level", ""), "info");
  EXPECT_EQ(back[0].value("offset", ""), "0");
  EXPECT_THAT(log_.Lines(kAheadLine), SizeIs(1));
}

TEST_F(ReportAgentClockTest, AClockWithinTheLimitOrBehindLogsNothing) {
  common::FakeClock at_limit(server_clock_.Now() + absl::Minutes(5));
  Push(*NewAgent(&at_limit));
  common::FakeClock behind(server_clock_.Now() - absl::Hours(1));
  Push(*NewAgent(&behind));
  EXPECT_THAT(log_.Lines(kAheadLine), IsEmpty());
  EXPECT_THAT(log_.Lines(kBackLine), IsEmpty());
}

}  // namespace report_agent_clock_test
}  // namespace credledger::kubebridge
