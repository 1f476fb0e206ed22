// CheckCheckpointAge and CheckWitnessed on a real database, genuine and tampered with the way
// an insider with the file would: re-hashing after an edit, deleting checkpoints, truncating
// the tail, forging checkpoints with a key of their own (docs/audit.md, "Start-up check" and
// "Witnesses").
#include "audit/log_anchors.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"

namespace credledger::audit {
namespace log_anchors_test {

using ::testing::HasSubstr;
using verifier_testing::IsProblem;
using verifier_testing::NoProblem;
using verifier_testing::Prefix;

class LogAnchorsTest : public verifier_testing::VerifierLogTest {
 protected:
  CheckpointAge Age(int64_t max_unsigned_events) {
    auto age = CheckCheckpointAge(*store_, Trusted(), max_unsigned_events);
    EXPECT_OK(age);
    return age.ok() ? *age : CheckpointAge();
  }

  std::optional<Problem> Witnessed(const std::vector<v1::Checkpoint>& checkpoints) {
    auto problem = CheckWitnessed(*store_, Trusted(), checkpoints, "file:witness.jsonl");
    EXPECT_OK(problem);
    return problem.ok() ? *problem : std::nullopt;
  }

  const KeyRing& Trusted() {
    trusted_ = KeyRing(key_->public_key());
    return trusted_;
  }

  void DeleteCheckpointsFrom(int64_t seq) {
    ASSERT_EQ(RawExec("DROP TRIGGER IF EXISTS checkpoints_refuse_delete;"), "");
    ASSERT_EQ(RawExec(absl::StrCat("DELETE FROM checkpoints WHERE seq >= ", seq)), "");
  }

  // Edits the payload of `seq` and re-hashes it and every later event consistently, as an
  // attacker without the key does.
  void EditAndRehash(int64_t seq) {
    ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
    std::vector<store::RecordedEvent> tail;
    for (const store::RecordedEvent& e : Events()) {
      if (e.seq >= seq) tail.push_back(e);
    }
    tail.front().payload[1] ^= 0x04;
    verifier_testing::Rehash(tail);
    // Streams chain from their earlier versions: restore each stream's link before `seq`.
    std::map<std::string, std::string> stream_hash;
    for (const store::RecordedEvent& e : Events()) {
      if (e.seq < seq) stream_hash[e.stream] = e.stream_hash;
    }
    for (store::RecordedEvent& e : tail) {
      std::string& previous =
          stream_hash.try_emplace(e.stream, std::string(32, '\0')).first->second;
      e.stream_hash = previous = verifier_testing::SpecSha256(previous + e.digest);
    }
    for (const store::RecordedEvent& e : tail) ASSERT_NO_FATAL_FAILURE(WriteRow(e));
  }

  KeyRing trusted_;
};

TEST_F(LogAnchorsTest, AGenuineLogIsAnchoredByItsNewestCheckpoint) {
  const CheckpointAge age = Age(10);
  EXPECT_EQ(age.head_seq, kEvents);
  EXPECT_EQ(age.head_chain_hash, EventAt(kEvents).chain_hash);
  ASSERT_TRUE(age.trusted.has_value());
  EXPECT_EQ(age.trusted->seq(), 20);
  EXPECT_EQ(age.refusal, "");
}

TEST_F(LogAnchorsTest, ACheckpointTooFarBehindTheHeadIsRefused) {
  const CheckpointAge age = Age(9);
  EXPECT_FALSE(age.trusted.has_value());
  EXPECT_EQ(age.refusal,
            "the newest checkpoint is at seq 20, 10 events behind the head at seq 30; at most 9 "
            "may be");
}

TEST_F(LogAnchorsTest, RehashedAfterAnEditWithEveryCheckpointDeletedIsRefused) {
  ASSERT_NO_FATAL_FAILURE(EditAndRehash(15));
  ASSERT_NO_FATAL_FAILURE(DeleteCheckpointsFrom(1));
  const CheckpointAge age = Age(2024);
  EXPECT_FALSE(age.trusted.has_value());
  EXPECT_THAT(age.refusal, HasSubstr("the log holds 30 events and no checkpoint"));
}

TEST_F(LogAnchorsTest, ACheckpointOfAnUntrustedKeyDoesNotAnchor) {
  ASSERT_NO_FATAL_FAILURE(EditAndRehash(15));
  ASSERT_NO_FATAL_FAILURE(DeleteCheckpointsFrom(11));
  ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(30, *other_key_));
  const CheckpointAge age = Age(15);
  EXPECT_FALSE(age.trusted.has_value());
  EXPECT_THAT(age.refusal, HasSubstr("no checkpoint of the last 15 events is signed by a trusted "
                                     "key and matches the log"));
  EXPECT_THAT(age.refusal, HasSubstr(other_key_->key_id()));
}

TEST_F(LogAnchorsTest, AnEmptyLogNeedsNoCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(DeleteCheckpointsFrom(1));
  store_.reset();
  std::filesystem::remove(db_path());
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  const CheckpointAge age = Age(0);
  EXPECT_EQ(age.head_seq, 0);
  EXPECT_EQ(age.refusal, "");
  EXPECT_THAT(Witnessed({}), NoProblem());
}

TEST_F(LogAnchorsTest, TheWitnessedCheckpointsMatchAGenuineLog) {
  EXPECT_THAT(Witnessed({SignedCheckpoint(10, *key_), SignedCheckpoint(30, *key_)}), NoProblem());
}

TEST_F(LogAnchorsTest, AnEmptyWitnessDoesNotVouchForANonEmptyLog) {
  EXPECT_THAT(Witnessed({}),
              IsProblem(0, kProblemWitnessMismatch,
                        "the witness file:witness.jsonl holds no checkpoint, but the log holds "
                        "30 events"));
}

TEST_F(LogAnchorsTest, ARewriteAfterTheLastRemainingCheckpointContradictsTheWitness) {
  const std::vector<v1::Checkpoint> witnessed = {SignedCheckpoint(20, *key_),
                                                 SignedCheckpoint(30, *key_)};
  const std::string genuine = EventAt(30).chain_hash;
  ASSERT_NO_FATAL_FAILURE(EditAndRehash(25));
  ASSERT_NO_FATAL_FAILURE(DeleteCheckpointsFrom(25));
  // Within reach of the checkpoint at seq 20, which still matches: the age check passes.
  EXPECT_EQ(Age(2024).refusal, "");
  EXPECT_THAT(Witnessed(witnessed),
              IsProblem(30, kProblemWitnessMismatch,
                        absl::StrCat("the checkpoint the witness file:witness.jsonl holds at seq "
                                     "30: seq 30 has chain_hash ",
                                     Prefix(EventAt(30).chain_hash), ", the checkpoint signed ",
                                     Prefix(genuine))));
}

TEST_F(LogAnchorsTest, ATruncatedTailEndsBeforeTheWitnessedCheckpoint) {
  const std::vector<v1::Checkpoint> witnessed = {SignedCheckpoint(30, *key_)};
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  ASSERT_EQ(RawExec("DELETE FROM events WHERE seq > 25"), "");
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  EXPECT_EQ(Age(2024).refusal, "");
  EXPECT_THAT(Witnessed(witnessed),
              IsProblem(30, kProblemWitnessMismatch,
                        HasSubstr("the log ends at seq 25, before the checkpoint at seq 30")));
}

TEST_F(LogAnchorsTest, AWitnessedCheckpointOfAnotherKeyIsRefused) {
  EXPECT_THAT(Witnessed({SignedCheckpoint(30, *other_key_)}),
              IsProblem(30, kProblemWitnessMismatch, HasSubstr(other_key_->key_id())));
}

}  // namespace log_anchors_test
}  // namespace credledger::audit
