// How a mirror pass carries out its plan (docs/mirrors.md, "How a change propagates"): several
// namespaces written at once, and the outcomes recorded in plan order in few Record calls,
// against the test API server and an in-memory identity stream.
#include "kubebridge/mirrors/mirror_plan_runner.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "kubebridge/mirrors/mirror_reconciler.h"
#include "test/kubebridge/mirrors/mirror_reconciler_fixture.h"

namespace credledger::kubebridge {
namespace mirror_plan_runner_test {

using ::credledger::testing::StatusIs;

// A FakeIdentityLog whose first Record call of mirror outcomes waits until `release` holds
// (or a minute passed), so that the writes of a pass run ahead of its recording.
class HeldLog final : public MirrorOutcomeSink {
 public:
  HeldLog(FakeIdentityLog& log, std::function<bool()> release)
      : log_(log), release_(std::move(release)) {}

  absl::StatusOr<RecordedOutcomes> Record(const std::string& identity,
                                          const std::vector<MirrorOutcome>& outcomes,
                                          const std::string& request_id) override {
    if (!held_once_ && absl::StrContains(request_id, "/mirrors/")) {
      held_once_ = true;
      const absl::Time give_up = absl::Now() + absl::Minutes(1);
      while (!release_() && absl::Now() < give_up) std::this_thread::yield();
    }
    return log_.Record(identity, outcomes, request_id);
  }
  absl::StatusOr<v1::IdentityState> Load(const std::string& identity) override {
    return log_.Load(identity);
  }

 private:
  FakeIdentityLog& log_;
  const std::function<bool()> release_;
  bool held_once_ = false;  // Record calls of one pass come from one thread
};

// A FakeIdentityLog to which someone else appends `event` right before the first Record call
// whose request id contains `step` ("/observe", "/mirrors/").
class OvertakenLog final : public MirrorOutcomeSink {
 public:
  OvertakenLog(FakeIdentityLog& log, std::string step, v1::Event event)
      : log_(log), step_(std::move(step)), event_(std::move(event)) {}

  absl::StatusOr<RecordedOutcomes> Record(const std::string& identity,
                                          const std::vector<MirrorOutcome>& outcomes,
                                          const std::string& request_id) override {
    if (!appended_ && absl::StrContains(request_id, step_)) {
      appended_ = true;
      log_.Append(event_);
    }
    return log_.Record(identity, outcomes, request_id);
  }
  absl::StatusOr<v1::IdentityState> Load(const std::string& identity) override {
    return log_.Load(identity);
  }

 private:
  FakeIdentityLog& log_;
  const std::string step_;
  const v1::Event event_;
  bool appended_ = false;  // Record calls of one pass come from one thread
};

class MirrorPlanRunnerTest : public MirrorReconcilerFixture {
 protected:
  // Creates `count` namespaces ns-000, ns-001, ..., allows the identity in exactly these and
  // binds an object in each.
  void BindInNamespaces(int count) {
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) {
      names.push_back(absl::StrFormat("ns-%03d", i));
      ASSERT_OK(client_->Create(
          Core("namespaces", "", ""),
          {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", names.back()}}}}));
    }
    SetSpec(Spec(names));
    for (const std::string& ns : names) Bind(ns, "c1");
  }

  // One pass writing up to `writers` namespaces at once, recording into `sink` (default: the
  // fixture's log).
  absl::StatusOr<MirrorReconcileResult> PassWith(int writers, MirrorOutcomeSink* sink = nullptr,
                                                 Cancellation* cancel = nullptr) {
    MirrorReconciler reconciler(*client_, sink != nullptr ? *sink : log_, nullptr, key_, nullptr,
                                writers);
    return reconciler.Reconcile(log_.state(), cancel);
  }

  // The Record calls from the `from`-th on that recorded mirror outcomes.
  std::vector<std::pair<std::string, size_t>> MirrorCallsSince(size_t from) {
    std::vector<std::pair<std::string, size_t>> out;
    const auto calls = log_.calls();
    for (size_t i = from; i < calls.size(); ++i) {
      if (absl::StrContains(calls[i].first, "/mirrors/")) out.push_back(calls[i]);
    }
    return out;
  }

  // Checks that the mirror calls `mirror_calls` of a pass that created one mirror per
  // namespace ns-000, ns-001, ... after its observation left the stream at version
  // `after_observe` are chained: each call's request id names the stream version the previous
  // one left and its first namespace; none holds more than kMaxOutcomesPerRecord. Returns
  // their sizes.
  std::vector<size_t> CheckChainedCalls(
      const std::vector<std::pair<std::string, size_t>>& mirror_calls, size_t after_observe) {
    std::vector<size_t> sizes;
    size_t recorded = 0;
    for (const auto& [request_id, size] : mirror_calls) {
      EXPECT_EQ(request_id, absl::StrFormat("credledger:mirror/cloud/0/%d/mirrors/ns-%03d",
                                            after_observe + recorded, recorded));
      EXPECT_LE(size, kMaxOutcomesPerRecord);
      recorded += size;
      sizes.push_back(size);
    }
    return sizes;
  }

  // The namespaces of the MirrorWritten events from the `from`-th event on, in log order.
  std::vector<std::string> WrittenSince(size_t from) {
    std::vector<std::string> out;
    for (const v1::Event& e : EventsSince(from)) {
      if (e.has_mirror_written()) out.push_back(e.mirror_written().namespace_());
    }
    return out;
  }
};

TEST_F(MirrorPlanRunnerTest, APassWritesAsManyNamespacesAtOnceAsItHasWriters) {
  BindInNamespaces(6);
  // Discovery of the bound objects' group-version, counted; and the mirrors' creations held
  // unanswered until the client gives up.
  kubeapi::Fault discovery;
  discovery.method = "GET";
  discovery.path_prefix = "/apis/infrastructure.cluster.x-k8s.io/v1beta1";
  discovery.exact_path = true;
  server_->faults().Add(discovery);
  kubeapi::Fault hold;
  hold.method = "POST";
  hold.path_prefix = "/api/v1/namespaces/";
  hold.hang = kubeapi::Hang::kBeforeServing;
  server_->faults().Add(hold);

  const size_t events = log_.events().size();
  Cancellation cancel;
  absl::StatusOr<MirrorReconcileResult> cancelled;
  std::thread pass([&] { cancelled = PassWith(4, nullptr, &cancel); });
  const bool four_at_once = server_->faults().AwaitHeld(4, absl::Seconds(20));
  cancel.Cancel();
  pass.join();
  ASSERT_TRUE(four_at_once) << "writes held at once: " << server_->faults().held();
  EXPECT_THAT(cancelled, StatusIs(absl::StatusCode::kCancelled));
  // The four owners were read through one discovery; nothing was written, nothing recorded
  // but the source.
  EXPECT_EQ(server_->faults().fired(), 1 + 4);
  EXPECT_THAT(WrittenSince(events), ::testing::IsEmpty());
  for (const v1::Event& e : EventsSince(events))
    EXPECT_FALSE(e.has_mirror_failed()) << e.DebugString();

  server_->faults().Clear();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, PassWith(4));
  EXPECT_EQ(result.created, 6);
  EXPECT_THAT(WrittenSince(events),
              ::testing::ElementsAre("ns-000", "ns-001", "ns-002", "ns-003", "ns-004", "ns-005"));
}

TEST_F(MirrorPlanRunnerTest, OutcomesAreRecordedInPlanOrderInCallsOfAtLeast256) {
  BindInNamespaces(300);
  const size_t calls = log_.calls().size();
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, PassWith(4));
  EXPECT_EQ(result.created, 300);
  const std::vector<size_t> sizes = CheckChainedCalls(MirrorCallsSince(calls), events);
  ASSERT_FALSE(sizes.empty());
  // At least 256 a call while writes ran, the rest at the end.
  EXPECT_GE(sizes[0], std::min<size_t>(kMinOutcomesPerRecord, 300));
  EXPECT_LE(sizes.size(), 2u);
  EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), size_t{0}), 300u);
  std::vector<std::string> in_plan_order;
  for (int i = 0; i < 300; ++i) in_plan_order.push_back(absl::StrFormat("ns-%03d", i));
  EXPECT_EQ(WrittenSince(events), in_plan_order);
  EXPECT_EQ(result.stream_version, log_.state().stream_version());
}

TEST_F(MirrorPlanRunnerTest, ARecordCallHoldsAtMost512Outcomes) {
  BindInNamespaces(900);
  const size_t calls = log_.calls().size();
  const size_t events = log_.events().size();
  const int64_t version = server_->resource_version();
  // The first call of mirror outcomes waits until every mirror was created: more than 512
  // are then ready at once.
  HeldLog held(log_, [&] { return server_->resource_version() >= version + 900; });
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, PassWith(4, &held));
  EXPECT_EQ(result.created, 900);
  const std::vector<size_t> sizes = CheckChainedCalls(MirrorCallsSince(calls), events);
  ASSERT_GE(sizes.size(), 3u);
  EXPECT_GE(sizes[0], kMinOutcomesPerRecord);
  EXPECT_EQ(sizes[1], kMaxOutcomesPerRecord);
  EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), size_t{0}), 900u);
}

// An unbind that comes in while a pass writes is not acted on by that pass, which says so:
// the bridge must run the identity again even though its stream then looks as the pass left
// it (PassTriggers).
TEST_F(MirrorPlanRunnerTest, APassTellsWhenOthersAppendedAfterItsPlan) {
  c1_ = Bind("team-a", "c1");
  c2_ = Bind("team-b", "c2");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult alone, PassWith(4));
  EXPECT_EQ(alone.created, 2);
  EXPECT_FALSE(alone.others_appended);
  EXPECT_EQ(alone.stream_version, log_.state().stream_version());

  RotateSource();
  v1::Event unbound;
  unbound.mutable_identity_unbound()->set_namespace_("team-b");
  *unbound.mutable_identity_unbound()->mutable_owner() = c2_;
  OvertakenLog overtaken(log_, "/mirrors/", unbound);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, PassWith(4, &overtaken));
  EXPECT_EQ(result.updated, 2);
  EXPECT_TRUE(result.others_appended);
  // The next pass deletes the mirror the unbind left unbound, and was not overtaken.
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult next, PassWith(4));
  EXPECT_EQ(next.deleted, 1);
  EXPECT_FALSE(next.others_appended);
}

// A binding that comes in between the read of the identity's state and the observation is
// planned, but its namespace's labels were not observed: the pass says it was overtaken.
TEST_F(MirrorPlanRunnerTest, APassTellsWhenOthersAppendedBeforeItsObservation) {
  c1_ = Bind("team-a", "c1");
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference c2, CreateOwner(*client_, "team-b", "c2"));
  v1::Event bound;
  bound.mutable_identity_bound()->set_namespace_("team-b");
  *bound.mutable_identity_bound()->mutable_owner() = c2;
  OvertakenLog overtaken(log_, "/observe", bound);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, PassWith(4, &overtaken));
  EXPECT_TRUE(result.others_appended);

  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult next, PassWith(4));
  EXPECT_FALSE(next.others_appended);
}

}  // namespace mirror_plan_runner_test
}  // namespace credledger::kubebridge
