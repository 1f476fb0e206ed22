// The Lease fence against the test API server (docs/operations.md, "The Lease fence"): one
// holder at a time, a takeover only after a whole lease duration without change, the fence
// closing at the renew deadline when renewals fail, and a release that lets the next replica in
// at once.
#include "kubebridge/client/lease_fence.h"

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/await_sleepers.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace lease_fence_test {

using ::testing::HasSubstr;
using testing::StatusIs;

class LeaseFenceTest : public ApiServerFixture {
 protected:
  LeaseFenceOptions Options(const std::string& identity) {
    LeaseFenceOptions options;
    options.namespace_name = "default";
    options.name = "credledger";
    options.identity = identity;
    options.clock = &clock_;
    return options;
  }

  nlohmann::json LeaseSpec() {
    absl::StatusOr<nlohmann::json> lease =
        client_->Get({"coordination.k8s.io", "v1", "leases", "default", "credledger"});
    EXPECT_OK(lease);
    return lease.ok() ? (*lease)["spec"] : nlohmann::json();
  }

  common::FakeClock clock_{absl::FromUnixSeconds(1'800'000'000)};
};

TEST_F(LeaseFenceTest, TheFirstReplicaCreatesTheLeaseAndHoldsItUntilTheRenewDeadline) {
  LeaseFence a(client_.get(), Options("replica-a"));
  EXPECT_THAT(a.Check(), StatusIs(absl::StatusCode::kUnavailable,
                                  HasSubstr("lease default/credledger is not held")));
  ASSERT_OK_AND_ASSIGN(bool held, a.TryAcquireOrRenew());
  EXPECT_TRUE(held);
  nlohmann::json spec = LeaseSpec();
  EXPECT_EQ(spec["holderIdentity"], "replica-a");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["acquireTime"], "2027-01-15T08:00:00.000000Z");
  EXPECT_EQ(spec["renewTime"], "2027-01-15T08:00:00.000000Z");
  EXPECT_EQ(spec.value("leaseTransitions", 0), 0);

  clock_.Advance(absl::Seconds(10) - absl::Microseconds(1));
  EXPECT_OK(a.Check());
  clock_.Advance(absl::Microseconds(1));
  EXPECT_FALSE(a.held());
  ASSERT_OK_AND_ASSIGN(held, a.TryAcquireOrRenew());
  EXPECT_TRUE(held);
  EXPECT_EQ(LeaseSpec()["renewTime"], "2027-01-15T08:00:10.000000Z");
  EXPECT_EQ(LeaseSpec()["acquireTime"], "2027-01-15T08:00:00.000000Z");
}

TEST_F(LeaseFenceTest, AnotherReplicaTakesOverOnlyAfterAWholeDurationWithoutChange) {
  LeaseFence a(client_.get(), Options("replica-a"));
  LeaseFence b(client_.get(), Options("replica-b"));
  ASSERT_OK_AND_ASSIGN(bool held, a.TryAcquireOrRenew());
  ASSERT_TRUE(held);
  ASSERT_OK_AND_ASSIGN(held, b.TryAcquireOrRenew());
  EXPECT_FALSE(held);

  // A renews 5 s later: B's wait starts again from when it sees the change.
  clock_.Advance(absl::Seconds(5));
  ASSERT_OK_AND_ASSIGN(held, a.TryAcquireOrRenew());
  ASSERT_TRUE(held);
  clock_.Advance(absl::Seconds(1));
  ASSERT_OK_AND_ASSIGN(held, b.TryAcquireOrRenew());
  EXPECT_FALSE(held);
  clock_.Advance(absl::Seconds(15) - absl::Microseconds(1));
  ASSERT_OK_AND_ASSIGN(held, b.TryAcquireOrRenew());
  EXPECT_FALSE(held);
  clock_.Advance(absl::Microseconds(1));
  ASSERT_OK_AND_ASSIGN(held, b.TryAcquireOrRenew());
  EXPECT_TRUE(held);
  EXPECT_EQ(LeaseSpec()["holderIdentity"], "replica-b");
  EXPECT_EQ(LeaseSpec()["leaseTransitions"], 1);

  // A's next round finds B holding it: A's fence closes at once, before its own deadline.
  ASSERT_OK_AND_ASSIGN(held, a.TryAcquireOrRenew());
  EXPECT_FALSE(held);
  EXPECT_FALSE(a.held());
  EXPECT_TRUE(b.held());
}

TEST_F(LeaseFenceTest, SeeingAnotherHolderClosesTheFenceBeforeItsDeadline) {
  LeaseFence a(client_.get(), Options("replica-a"));
  ASSERT_OK_AND_ASSIGN(bool held, a.TryAcquireOrRenew());
  ASSERT_TRUE(held);
  // Someone else writes the Lease while A's deadline is still 8 s away.
  const ResourceRef ref{"coordination.k8s.io", "v1", "leases", "default", "credledger"};
  ASSERT_OK_AND_ASSIGN(nlohmann::json lease, client_->Get(ref));
  lease["spec"]["holderIdentity"] = "replica-b";
  ASSERT_OK(client_->Update(ref, lease).status());
  clock_.Advance(absl::Seconds(2));
  ASSERT_OK(a.Check());
  ASSERT_OK_AND_ASSIGN(held, a.TryAcquireOrRenew());
  EXPECT_FALSE(held);
  EXPECT_FALSE(a.held());
}

TEST_F(LeaseFenceTest, ReleaseLetsTheNextReplicaInAtOnce) {
  LeaseFence a(client_.get(), Options("replica-a"));
  LeaseFence b(client_.get(), Options("replica-b"));
  ASSERT_OK_AND_ASSIGN(bool held, a.TryAcquireOrRenew());
  ASSERT_TRUE(held);
  ASSERT_OK(a.Release());
  EXPECT_FALSE(a.held());
  EXPECT_EQ(LeaseSpec()["holderIdentity"], "");
  ASSERT_OK_AND_ASSIGN(held, b.TryAcquireOrRenew());
  EXPECT_TRUE(held);
  EXPECT_EQ(LeaseSpec()["leaseTransitions"], 1);
}

TEST_F(LeaseFenceTest, RenewalsThatKeepFailingCloseTheFenceAtTheRenewDeadline) {
  KubeClientOptions once = ClientOptions();
  once.retry.max_attempts = 1;
  std::unique_ptr<KubeClient> client = NewClient(config_, once);
  absl::Notification lost;
  LeaseFence a(client.get(), Options("replica-a"), [&lost] { lost.Notify(); });
  ASSERT_OK_AND_ASSIGN(bool held, a.TryAcquireOrRenew());
  ASSERT_TRUE(held);
  a.Start();
  kubeapi::Fault failing;
  failing.path_prefix = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  failing.status_code = 500;
  server_->faults().Add(failing);
  // Renewals at +2, +4, +6 and +8 s fail; the fence stays open until +10 s.
  for (int round = 1; round <= 4; ++round) {
    ASSERT_TRUE(AwaitSleepers(clock_, 1));
    clock_.Advance(absl::Seconds(2));
    ASSERT_TRUE(AwaitSleepers(clock_, 1));
    SCOPED_TRACE(round);
    EXPECT_OK(a.Check());
    EXPECT_FALSE(lost.HasBeenNotified());
  }
  clock_.Advance(absl::Seconds(2));
  EXPECT_TRUE(lost.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_FALSE(a.held());
  a.Stop();
}

TEST_F(LeaseFenceTest, AcquireWaitsForTheHolderAndStopsWhenCancelled) {
  LeaseFence a(client_.get(), Options("replica-a"));
  ASSERT_OK_AND_ASSIGN(bool held, a.TryAcquireOrRenew());
  ASSERT_TRUE(held);
  LeaseFence b(client_.get(), Options("replica-b"));
  Cancellation cancel;
  absl::Status acquired;
  std::thread waiter([&] { acquired = b.Acquire(cancel); });
  ASSERT_TRUE(AwaitSleepers(clock_, 1));
  cancel.Cancel();
  waiter.join();
  EXPECT_THAT(acquired, StatusIs(absl::StatusCode::kCancelled));
  EXPECT_FALSE(b.held());
}

TEST(LeaseFenceOptionsTest, BadOptionsNameTheFlag) {
  LeaseFenceOptions options;
  options.namespace_name = "credledger-system";
  options.name = "credledger";
  options.identity = "pod-1";
  EXPECT_OK(ValidateLeaseFenceOptions(options));
  options.duration = absl::Milliseconds(15500);
  EXPECT_THAT(ValidateLeaseFenceOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--lease-duration")));
  options.duration = absl::Hours(1) + absl::Seconds(1);
  EXPECT_THAT(ValidateLeaseFenceOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("from 2s to 1h")));
  options.duration = absl::Seconds(10);
  EXPECT_THAT(ValidateLeaseFenceOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("renew deadline")));
  options.duration = absl::Seconds(15);
  options.name = "Credledger";
  EXPECT_THAT(ValidateLeaseFenceOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--lease-name")));
  options.name = "credledger";
  options.identity.clear();
  EXPECT_THAT(ValidateLeaseFenceOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--lease-identity")));
}

}  // namespace lease_fence_test
}  // namespace credledger::kubebridge
