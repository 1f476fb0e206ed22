// RecreationDamper on a FakeClock (docs/mirrors.md, "How a change propagates"): the hold
// after each external deletion of a namespace's mirror, its cap, and its reset after a quiet
// spell.
#include "kubebridge/mirrors/recreation_damper.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::kubebridge {
namespace recreation_damper_test {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class RecreationDamperTest : public ::testing::Test {
 protected:
  // Reports one external deletion of `identity`'s mirror in `ns` now and returns how long
  // the namespace is then held back.
  absl::Duration DeletedNow(const std::string& ns, const std::string& identity = "cloud") {
    EXPECT_THAT(damper_.HeldBack(identity, {ns}), ::testing::Contains(ns));
    std::optional<absl::Time> release = damper_.NextRelease(identity);
    EXPECT_TRUE(release.has_value());
    return release.has_value() ? *release - clock_.Now() : absl::ZeroDuration();
  }

  common::FakeClock clock_;
  RecreationDamper damper_{clock_, RecreationDamping{}};
};

TEST_F(RecreationDamperTest, NothingIsHeldBackBeforeAnExternalDeletion) {
  EXPECT_THAT(damper_.HeldBack("cloud", {}), IsEmpty());
  EXPECT_EQ(damper_.NextRelease("cloud"), std::nullopt);
}

TEST_F(RecreationDamperTest, EachDeletionDoublesTheHoldUpToFiveMinutes) {
  std::vector<absl::Duration> holds;
  for (int i = 0; i < 11; ++i) {
    holds.push_back(DeletedNow("team-a"));
    clock_.Advance(holds.back());  // the mirror is re-created, and deleted again at once
  }
  EXPECT_THAT(holds, ElementsAre(absl::Seconds(1), absl::Seconds(2), absl::Seconds(4),
                                 absl::Seconds(8), absl::Seconds(16), absl::Seconds(32),
                                 absl::Seconds(64), absl::Seconds(128), absl::Seconds(256),
                                 absl::Minutes(5), absl::Minutes(5)));
}

TEST_F(RecreationDamperTest, AHoldEndsAtItsTimeAndCoversOnlyItsNamespaceAndIdentity) {
  DeletedNow("team-a");
  EXPECT_THAT(damper_.HeldBack("cloud", {}), ElementsAre("team-a"));
  EXPECT_THAT(damper_.HeldBack("other", {}), IsEmpty());
  clock_.Advance(absl::Milliseconds(999));
  EXPECT_THAT(damper_.HeldBack("cloud", {}), ElementsAre("team-a"));
  clock_.Advance(absl::Milliseconds(1));
  EXPECT_THAT(damper_.HeldBack("cloud", {}), IsEmpty());
  EXPECT_EQ(damper_.NextRelease("cloud"), std::nullopt);
}

TEST_F(RecreationDamperTest, TenQuietMinutesStartOverAtOneSecond) {
  DeletedNow("team-a");
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(DeletedNow("team-a"), absl::Seconds(2));
  clock_.Advance(absl::Minutes(10) - absl::Seconds(1));
  EXPECT_EQ(DeletedNow("team-a"), absl::Seconds(4)) << "9:59 after the last deletion";
  clock_.Advance(absl::Minutes(10));
  EXPECT_EQ(DeletedNow("team-a"), absl::Seconds(1));
}

TEST_F(RecreationDamperTest, NamespacesAreDampedApartAndTheEarliestReleaseIsReported) {
  DeletedNow("team-a");
  clock_.Advance(absl::Seconds(1));
  DeletedNow("team-a");  // held 2 s
  EXPECT_EQ(DeletedNow("team-b"), absl::Seconds(1));
  EXPECT_EQ(damper_.NextRelease("cloud"), clock_.Now() + absl::Seconds(1));
  EXPECT_THAT(damper_.HeldBack("cloud", {}), ElementsAre("team-a", "team-b"));
}

}  // namespace recreation_damper_test
}  // namespace credledger::kubebridge
