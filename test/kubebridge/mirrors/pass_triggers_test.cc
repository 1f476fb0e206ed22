// PassTriggers (docs/mirrors.md, "How a change propagates"): a pass queued only by the echoes
// of the last pass's own records and mirror updates is skipped; any other trigger, a stream
// that moved, or a pass that left work makes the next one run.
#include "kubebridge/mirrors/pass_triggers.h"

#include <string>

#include "gtest/gtest.h"

namespace credledger::kubebridge {
namespace pass_triggers_test {

// A pass that updated team-a's and team-b's mirrors (resourceVersions 11 and 12) and left the
// stream at `stream_version`.
MirrorReconcileResult UpdatedTwo(int64_t stream_version) {
  MirrorReconcileResult result;
  result.updated = 2;
  result.updated_versions = {{"team-a", "11"}, {"team-b", "12"}};
  result.stream_version = stream_version;
  return result;
}

class PassTriggersTest : public ::testing::Test {
 protected:
  // Runs one pass of "cloud" that ends with `result`; returns End's answer.
  bool RunPass(int64_t loaded_at, const MirrorReconcileResult& result) {
    EXPECT_TRUE(triggers_.Begin("cloud", loaded_at));
    return triggers_.End("cloud", &result);
  }

  PassTriggers triggers_;
};

TEST_F(PassTriggersTest, TheFirstPassRunsAndOneQueuedByItsOwnRecordsIsSkipped) {
  EXPECT_FALSE(RunPass(4, UpdatedTwo(7)));
  // The projection reports the events the pass appended: the stream is where it left it.
  EXPECT_FALSE(triggers_.Begin("cloud", 7));
  EXPECT_FALSE(triggers_.Begin("cloud", 7));
}

TEST_F(PassTriggersTest, AStreamThatMovedOnRunsThePass) {
  EXPECT_FALSE(RunPass(4, UpdatedTwo(7)));
  // Someone else appended (a binding, a spec change).
  EXPECT_TRUE(triggers_.Begin("cloud", 8));
}

TEST_F(PassTriggersTest, ATriggerFromOutsideTheStreamRunsThePass) {
  EXPECT_FALSE(RunPass(4, UpdatedTwo(7)));
  triggers_.Outside("cloud");  // the source changed, say
  EXPECT_FALSE(RunPass(7, UpdatedTwo(7)));
  // The trigger is used up by the pass it started.
  EXPECT_FALSE(triggers_.Begin("cloud", 7));
}

TEST_F(PassTriggersTest, TheTriggersOfEachIdentityAreTrackedApart) {
  EXPECT_FALSE(RunPass(4, UpdatedTwo(7)));
  triggers_.Outside("other");
  EXPECT_TRUE(triggers_.MirrorModified("other", "team-a", "11"));
  EXPECT_FALSE(triggers_.Begin("cloud", 7));
  EXPECT_TRUE(triggers_.Begin("other", 7));
}

TEST_F(PassTriggersTest, AnUpdateThePassWroteIsAnEchoAndAnyOtherQueuesTheIdentity) {
  EXPECT_FALSE(RunPass(4, UpdatedTwo(7)));
  // The echoes come after the pass ended.
  EXPECT_FALSE(triggers_.MirrorModified("cloud", "team-a", "11"));
  EXPECT_FALSE(triggers_.MirrorModified("cloud", "team-b", "12"));
  EXPECT_FALSE(triggers_.Begin("cloud", 7));
  // Someone else edits the mirror: a new resourceVersion.
  EXPECT_TRUE(triggers_.MirrorModified("cloud", "team-a", "13"));
  EXPECT_TRUE(triggers_.Begin("cloud", 7));
}

TEST_F(PassTriggersTest, AnEchoCountsOnce) {
  EXPECT_FALSE(RunPass(4, UpdatedTwo(7)));
  EXPECT_FALSE(triggers_.MirrorModified("cloud", "team-a", "11"));
  EXPECT_TRUE(triggers_.MirrorModified("cloud", "team-a", "11"));
}

TEST_F(PassTriggersTest, UpdatesReportedDuringAPassAreDecidedWhenItEnds) {
  EXPECT_TRUE(triggers_.Begin("cloud", 4));
  // The echoes come before the pass knows what it wrote.
  EXPECT_FALSE(triggers_.MirrorModified("cloud", "team-a", "11"));
  EXPECT_FALSE(triggers_.MirrorModified("cloud", "team-b", "12"));
  const MirrorReconcileResult result = UpdatedTwo(7);
  EXPECT_FALSE(triggers_.End("cloud", &result));
  EXPECT_FALSE(triggers_.Begin("cloud", 7));

  EXPECT_TRUE(triggers_.Begin("cloud", 8));
  // Someone else's edit during the pass.
  EXPECT_FALSE(triggers_.MirrorModified("cloud", "team-c", "20"));
  const MirrorReconcileResult second = UpdatedTwo(9);
  EXPECT_TRUE(triggers_.End("cloud", &second));
  EXPECT_TRUE(triggers_.Begin("cloud", 9));
}

TEST_F(PassTriggersTest, APassThatFailedOrLeftWorkMakesTheNextOneRun) {
  EXPECT_TRUE(triggers_.Begin("cloud", 4));
  EXPECT_FALSE(triggers_.End("cloud", nullptr));  // failed: retried with backoff
  EXPECT_TRUE(triggers_.Begin("cloud", 4));

  MirrorReconcileResult waiting = UpdatedTwo(7);
  waiting.retry = true;  // a conflict
  EXPECT_FALSE(triggers_.End("cloud", &waiting));
  EXPECT_TRUE(triggers_.Begin("cloud", 7));

  MirrorReconcileResult held = UpdatedTwo(8);
  held.held_back = 1;  // written when the hold ends
  EXPECT_FALSE(triggers_.End("cloud", &held));
  EXPECT_TRUE(triggers_.Begin("cloud", 8));

  MirrorReconcileResult overtaken = UpdatedTwo(10);
  overtaken.others_appended = true;  // an unbind came in while it wrote
  EXPECT_FALSE(triggers_.End("cloud", &overtaken));
  EXPECT_TRUE(triggers_.Begin("cloud", 10));

  MirrorReconcileResult inactive;  // recorded nothing: stream_version -1
  EXPECT_FALSE(triggers_.End("cloud", &inactive));
  EXPECT_TRUE(triggers_.Begin("cloud", 8));
}

}  // namespace pass_triggers_test
}  // namespace credledger::kubebridge
