// ReportWatcher against the test Kubernetes API server: which TargetReports reach the sink,
// in which order, what is logged, that a report written while the watch was down arrives,
// that a report refused because its Target was not registered yet is applied once the
// Target appears in the log, and that Stop ends a blocked watch promptly.
#include "kubebridge/reports/report_watcher.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/reports/target_report_codec.h"
#include "projections/credential_projector.h"
#include "projections/target_state.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace report_watcher_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr absl::Duration kAwaitLimit = absl::Seconds(30);

struct Submitted {
  std::string key;  // "<namespace>/<name>"
  v1::TargetReportSpec report;
  std::string resource_version;
};

// Records submissions; can answer with an error, can hold its first call until released, and
// answers NotFound, as the service does, for the Targets it is told are not registered.
class FakeSink : public ReportSink {
 public:
  absl::Status SubmitReport(absl::string_view target_namespace, absl::string_view name,
                            const v1::TargetReportSpec& report,
                            absl::string_view resource_version) override {
    absl::MutexLock lock(&mu_);
    const std::string key = absl::StrCat(target_namespace, "/", name);
    calls_.push_back({key, report, std::string(resource_version)});
    if (hold_first_ && calls_.size() == 1) {
      mu_.AwaitWithTimeout(absl::Condition(&released_), kAwaitLimit);
    }
    if (unregistered_.count(key) > 0) {
      return absl::NotFoundError(absl::StrCat("target \"", key, "\": not found"));
    }
    return calls_.size() == 1 ? first_result_ : absl::OkStatus();
  }

  void SetRegistered(const std::string& key, bool registered) {
    absl::MutexLock lock(&mu_);
    if (registered) {
      unregistered_.erase(key);
    } else {
      unregistered_.insert(key);
    }
  }

  void HoldFirst() {
    absl::MutexLock lock(&mu_);
    hold_first_ = true;
  }
  void ReleaseFirst() {
    absl::MutexLock lock(&mu_);
    released_ = true;
  }
  void FailFirst(absl::Status status) {
    absl::MutexLock lock(&mu_);
    first_result_ = std::move(status);
  }
  bool AwaitCalls(size_t n) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return calls_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), kAwaitLimit);
  }
  std::vector<Submitted> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  std::vector<std::string> keys() {
    std::vector<std::string> keys;
    for (const Submitted& s : calls()) keys.push_back(s.key);
    return keys;
  }

 private:
  absl::Mutex mu_;
  std::vector<Submitted> calls_ ABSL_GUARDED_BY(mu_);
  bool hold_first_ ABSL_GUARDED_BY(mu_) = false;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status first_result_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> unregistered_ ABSL_GUARDED_BY(mu_);
};

// A report at `unix_seconds` with one Ready release.
v1::TargetReportSpec Report(int64_t unix_seconds) {
  v1::TargetReportSpec spec;
  spec.mutable_last_report_time()->set_seconds(unix_seconds);
  v1::ReleaseStatus* release = spec.add_releases();
  release->set_name("ingress");
  release->set_namespace_("apps");
  release->set_phase(v1::RELEASE_PHASE_READY);
  return spec;
}

class ReportWatcherTest : public ApiServerFixture {
 protected:
  kubeapi::ApiServerOptions ServerOptions() {
    kubeapi::ApiServerOptions options = ApiServerFixture::ServerOptions();
    options.namespaces = {"demo", "team-b"};
    return options;
  }
  void SetUp() override {
    StartServer(ServerOptions());
    OpenLog();
  }
  void TearDown() override {
    if (watcher_ != nullptr) watcher_->Stop();
    watcher_.reset();
    targets_.reset();
    ApiServerFixture::TearDown();
  }

  // The log of Targets and the projector the watcher learns registrations from.
  void OpenLog() {
    auto opened = store::SqliteEventStore::Open({.path = dir_.path() / "log.db"});
    ASSERT_OK(opened);
    store_ = *std::move(opened);
    auto projector = projections::CredentialProjector::Start(store_.get(), {});
    ASSERT_OK(projector);
    targets_ = *std::move(projector);
  }

  void StartWatcher() {
    ListWatchOptions options;
    options.backoff.initial_delay = absl::Milliseconds(10);
    options.backoff.max_delay = absl::Milliseconds(200);
    watcher_ = ReportWatcher::Start(client_.get(), &sink_, targets_.get(), options);
  }

  // Registers Target ns/name: the sink takes its reports from now on, and TargetRegistered
  // is appended to the log the projector follows.
  void Register(const std::string& ns, const std::string& name) {
    sink_.SetRegistered(absl::StrCat(ns, "/", name), true);
    v1::Event registered;
    registered.mutable_target_registered()->set_target_uid("0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718");
    registered.mutable_target_registered()->set_namespace_(ns);
    registered.mutable_target_registered()->set_name(name);
    v1::EventMetadata metadata;
    metadata.set_actor("alice");
    ASSERT_OK_AND_ASSIGN(store::NewEvent encoded,
                         store::EventCodec::Default().Encode(registered, metadata));
    store::AppendRequest request;
    request.request_id = absl::StrCat("register-", ns, "-", name);
    request.streams.push_back(
        {projections::TargetStream(ns, name), store::ExpectedVersion::Any(), {std::move(encoded)}});
    ASSERT_OK(store_->Append(std::move(request)));
  }

  // Creates TargetReport ns/name with `spec` (the pre-created empty one when nullopt).
  // Returns the created object.
  nlohmann::json Create(const std::string& ns, const std::string& name,
                        const std::optional<nlohmann::json>& spec) {
    nlohmann::json object = TargetReportObject(ns, name);
    if (spec.has_value()) object["spec"] = *spec;
    absl::StatusOr<nlohmann::json> created = client_->Create(TargetReportResource(ns), object);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : nlohmann::json();
  }

  FakeSink sink_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<projections::CredentialProjector> targets_;
  std::unique_ptr<ReportWatcher> watcher_;
};

TEST_F(ReportWatcherTest, ReportsListedAtStartAndCreatedLaterInAnyNamespaceAreDelivered) {
  nlohmann::json before = Create("demo", "edge-1", EncodeTargetReportSpec(Report(1000)));
  StartWatcher();
  ASSERT_TRUE(sink_.AwaitCalls(1));
  nlohmann::json later = Create("team-b", "edge-2", EncodeTargetReportSpec(Report(2000)));
  ASSERT_TRUE(sink_.AwaitCalls(2));

  std::vector<Submitted> calls = sink_.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].key, "demo/edge-1");
  EXPECT_EQ(calls[0].resource_version, before["metadata"]["resourceVersion"]);
  EXPECT_EQ(calls[0].report.last_report_time().seconds(), 1000);
  EXPECT_EQ(calls[0].report.releases(0).phase(), v1::RELEASE_PHASE_READY);
  EXPECT_EQ(calls[1].key, "team-b/edge-2");
  EXPECT_EQ(calls[1].resource_version, later["metadata"]["resourceVersion"]);
  EXPECT_EQ(calls[1].report.last_report_time().seconds(), 2000);
}

TEST_F(ReportWatcherTest, APreCreatedEmptyReportIsNotDelivered) {
  Create("demo", "edge-0", std::nullopt);  // listed at start
  StartWatcher();
  Create("demo", "edge-1", std::nullopt);  // watched
  Create("demo", "edge-2", EncodeTargetReportSpec(Report(1000)));
  ASSERT_TRUE(sink_.AwaitCalls(1));
  // The watch delivers in order: the empty reports came first and were skipped.
  EXPECT_THAT(sink_.keys(), ElementsAre("demo/edge-2"));
}

TEST_F(ReportWatcherTest, AnUpdateIsDeliveredWithItsNewRevision) {
  StartWatcher();
  nlohmann::json object = Create("demo", "edge-1", std::nullopt);
  object["spec"] = EncodeTargetReportSpec(Report(1000));
  ASSERT_OK_AND_ASSIGN(nlohmann::json first, client_->Update(TargetReportResource("demo"), object));
  ASSERT_TRUE(sink_.AwaitCalls(1));
  first["spec"] = EncodeTargetReportSpec(Report(1030));
  ASSERT_OK_AND_ASSIGN(nlohmann::json second, client_->Update(TargetReportResource("demo"), first));
  ASSERT_TRUE(sink_.AwaitCalls(2));

  std::vector<Submitted> calls = sink_.calls();
  EXPECT_EQ(calls[0].resource_version, first["metadata"]["resourceVersion"]);
  EXPECT_EQ(calls[1].resource_version, second["metadata"]["resourceVersion"]);
  EXPECT_EQ(calls[1].report.last_report_time().seconds(), 1030);
}

TEST_F(ReportWatcherTest, AnUndecodableReportIsLoggedAndSkipped) {
  StartWatcher();
  nlohmann::json bad = EncodeTargetReportSpec(Report(1000));
  bad["releases"][0]["phase"] = "Running";
  ::testing::internal::CaptureStderr();
  Create("demo", "edge-1", bad);
  Create("demo", "edge-2", EncodeTargetReportSpec(Report(1000)));
  const bool delivered = sink_.AwaitCalls(1);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(delivered);
  EXPECT_THAT(sink_.keys(), ElementsAre("demo/edge-2"));
  EXPECT_THAT(log, HasSubstr("TargetReport skipped: undecodable"));
  EXPECT_THAT(log, HasSubstr("demo/edge-1"));
  EXPECT_THAT(log, HasSubstr("spec.releases[0].phase"));
}

TEST_F(ReportWatcherTest, ARejectedReportIsLoggedAndTheWatchGoesOn) {
  sink_.FailFirst(absl::FailedPreconditionError("spec.lastReportTime: not later"));
  StartWatcher();
  ::testing::internal::CaptureStderr();
  Create("demo", "edge-1", EncodeTargetReportSpec(Report(1000)));
  Create("demo", "edge-2", EncodeTargetReportSpec(Report(1000)));
  const bool delivered = sink_.AwaitCalls(2);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(delivered);
  EXPECT_THAT(sink_.keys(), ElementsAre("demo/edge-1", "demo/edge-2"));
  EXPECT_THAT(log, HasSubstr("TargetReport rejected"));
  EXPECT_THAT(log, HasSubstr("spec.lastReportTime: not later"));
}

// The watch stream dropped by the network (every attempt cut at once until the fault is
// cleared): a report written meanwhile reaches the sink once, when the watch is back.
TEST_F(ReportWatcherTest, AReportWrittenWhileTheWatchWasDownIsDeliveredOnce) {
  kubeapi::Fault down;
  down.path_prefix = "/apis/solar.opendefense.cloud/v1alpha1/targetreports";
  down.drop_watch_after_events = 0;
  server_->faults().Add(down);
  StartWatcher();
  ASSERT_TRUE(server_->faults().AwaitFired(1, kAwaitLimit));  // listed; the watch is down
  Create("demo", "edge-1", EncodeTargetReportSpec(Report(1000)));
  server_->faults().Clear();
  ASSERT_TRUE(sink_.AwaitCalls(1));
  Create("demo", "edge-2", EncodeTargetReportSpec(Report(1000)));
  ASSERT_TRUE(sink_.AwaitCalls(2));
  EXPECT_THAT(sink_.keys(), ElementsAre("demo/edge-1", "demo/edge-2"));
}

// A TargetReport written before its Target was registered (the sink answers NotFound) is
// applied when TargetRegistered reaches the log, without another write of the agent.
TEST_F(ReportWatcherTest, AReportWrittenBeforeItsTargetIsAppliedWhenTheTargetIsRegistered) {
  sink_.SetRegistered("demo/edge-1", false);
  StartWatcher();
  nlohmann::json object = Create("demo", "edge-1", EncodeTargetReportSpec(Report(1000)));
  ASSERT_TRUE(sink_.AwaitCalls(1));
  Register("demo", "edge-1");
  ASSERT_TRUE(sink_.AwaitCalls(2));
  std::vector<Submitted> calls = sink_.calls();
  EXPECT_EQ(calls[1].key, "demo/edge-1");
  EXPECT_EQ(calls[1].resource_version, object["metadata"]["resourceVersion"]);
  EXPECT_EQ(calls[1].report.last_report_time().seconds(), 1000);
}

// Of several revisions written while the Target was missing, the newest is applied, once.
TEST_F(ReportWatcherTest, TheNewestOfTheReportsWrittenBeforeTheTargetIsApplied) {
  sink_.SetRegistered("demo/edge-1", false);
  sink_.SetRegistered("demo/edge-2", false);
  StartWatcher();
  nlohmann::json object = Create("demo", "edge-1", EncodeTargetReportSpec(Report(1000)));
  ASSERT_TRUE(sink_.AwaitCalls(1));
  object["spec"] = EncodeTargetReportSpec(Report(1030));
  ASSERT_OK_AND_ASSIGN(nlohmann::json newest,
                       client_->Update(TargetReportResource("demo"), object));
  ASSERT_TRUE(sink_.AwaitCalls(2));
  Create("demo", "edge-2", EncodeTargetReportSpec(Report(1000)));
  ASSERT_TRUE(sink_.AwaitCalls(3));
  Register("demo", "edge-1");
  ASSERT_TRUE(sink_.AwaitCalls(4));
  Create("demo", "edge-3", EncodeTargetReportSpec(Report(1000)));  // a later mark in the order
  ASSERT_TRUE(sink_.AwaitCalls(5));
  std::vector<Submitted> calls = sink_.calls();
  EXPECT_THAT(sink_.keys(), ElementsAre("demo/edge-1", "demo/edge-1", "demo/edge-2", "demo/edge-1",
                                        "demo/edge-3"));
  EXPECT_EQ(calls[3].resource_version, newest["metadata"]["resourceVersion"]);
  EXPECT_EQ(calls[3].report.last_report_time().seconds(), 1030);
}

TEST_F(ReportWatcherTest, StopEndsABlockedWatchPromptly) {
  StartWatcher();
  Create("demo", "edge-1", EncodeTargetReportSpec(Report(1000)));
  ASSERT_TRUE(sink_.AwaitCalls(1));  // the watch stream is open and idle now
  const absl::Time start = absl::Now();
  watcher_->Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  EXPECT_FALSE(client_->stopped());  // the watcher's own cancellation, not the client's
}

class ReportWatcherRelistTest : public ReportWatcherTest {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.watch_history = 5;
    options.watch_history_window = absl::ZeroDuration();
    StartServer(std::move(options));
    OpenLog();
  }
};

// Regression: a re-list handed every TargetReport to the sink again, so a restarted watch
// resubmitted reports the service had already accepted.
TEST_F(ReportWatcherRelistTest, ARelistSkipsRevisionsAlreadyHandled) {
  Create("demo", "edge-1", EncodeTargetReportSpec(Report(1000)));
  sink_.HoldFirst();
  StartWatcher();
  ASSERT_TRUE(sink_.AwaitCalls(1));  // held inside the first list's handling
  // Enough writes that the list's resourceVersion falls out of the 5-event history, so the
  // watch that follows gets 410 Expired and the watcher lists again.
  for (int i = 0; i < 10; ++i) Create("demo", "empty-" + std::to_string(i), std::nullopt);
  sink_.ReleaseFirst();
  Create("demo", "edge-2", EncodeTargetReportSpec(Report(1000)));
  ASSERT_TRUE(sink_.AwaitCalls(2));
  EXPECT_THAT(sink_.keys(), ElementsAre("demo/edge-1", "demo/edge-2"));
}

}  // namespace report_watcher_test
}  // namespace credledger::kubebridge
