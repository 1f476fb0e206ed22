// VerifyLog and VerifyLogTail on a real database, genuine and tampered with on a separate
// SQLite connection the way an attacker with file access would: dropping the append-only
// triggers first, then editing, deleting or re-hashing rows (docs/audit.md, "Verifying an
// export, step by step").
#include "audit/log_verifier.h"

#include <optional>
#include <string>
#include <vector>

#include "audit/snapshot_seal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"

namespace credledger::audit {
namespace log_verifier_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using verifier_testing::IsProblem;
using verifier_testing::NoProblem;
using verifier_testing::Prefix;

class LogVerifierTest : public verifier_testing::VerifierLogTest {
 protected:
  // The payload of `seq` with one bit flipped.
  std::string FlippedPayload(int64_t seq) {
    std::string payload = EventAt(seq).payload;
    payload[1] ^= 0x04;
    return payload;
  }

  Verdict VerifyWholeLog(int64_t min_seq = 0) {
    auto verdict = VerifyLog(*store_, key_->public_key(), min_seq);
    EXPECT_OK(verdict);
    return verdict.ok() ? *verdict : Verdict();
  }

  Verdict VerifyTail(int64_t events, bool with_key = true) {
    const KeyRing keys(key_->public_key());
    auto verdict = VerifyLogTail(*store_, events, with_key ? &keys : nullptr);
    EXPECT_OK(verdict);
    return verdict.ok() ? *verdict : Verdict();
  }
};

TEST_F(LogVerifierTest, GenuineLogVerifiesWithEveryCheckpoint) {
  const Verdict verdict = VerifyWholeLog(/*min_seq=*/kEvents);

  EXPECT_THAT(verdict.problem, NoProblem());
  EXPECT_EQ(verdict.events, kEvents);
  EXPECT_EQ(verdict.head_seq, kEvents);
  EXPECT_EQ(verdict.checkpoints_checked, 2);
  EXPECT_EQ(verdict.snapshots_checked, 0);
  EXPECT_EQ(FormatVerdict(verdict),
            "OK: 30 events, seq 1..30, head 30, 2 checkpoints verified (newest at seq 20, key " +
                key_->key_id() + "), 0 snapshots verified\n");
}

TEST_F(LogVerifierTest, EmptyLogVerifies) {
  store::SqliteEventStoreOptions options;
  options.path = dir_.path() / "empty.db";
  auto empty = store::SqliteEventStore::Open(options);
  ASSERT_OK(empty);

  auto verdict = VerifyLog(**empty, key_->public_key(), 0);
  ASSERT_OK(verdict);
  EXPECT_THAT(verdict->problem, NoProblem());
  EXPECT_EQ(verdict->events, 0);
  const KeyRing keys(key_->public_key());
  auto tail = VerifyLogTail(**empty, 10, &keys);
  ASSERT_OK(tail);
  EXPECT_THAT(tail->problem, NoProblem());
}

TEST_F(LogVerifierTest, EditedPayloadIsADigestMismatchAtItsSeq) {
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  ASSERT_NO_FATAL_FAILURE(SetBlob(12, "payload", FlippedPayload(12)));

  const Verdict verdict = VerifyWholeLog();
  EXPECT_THAT(verdict.problem, IsProblem(12, kProblemDigestMismatch,
                                         HasSubstr("the stored bytes of seq 12 hash to")));
  EXPECT_EQ(verdict.events, 11);
}

TEST_F(LogVerifierTest, EditedChainHashIsAChainBreakAtItsSeq) {
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  ASSERT_NO_FATAL_FAILURE(SetBlob(12, "chain_hash", std::string(32, '\x5a')));

  EXPECT_THAT(VerifyWholeLog().problem,
              IsProblem(12, kProblemChainBreak, HasSubstr("the chain_hash of seq 12 is 5a5a")));
}

TEST_F(LogVerifierTest, RowReplacedWithItsOwnHashesRecomputedBreaksTheNextLink) {
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  std::vector<store::RecordedEvent> events = Events();
  events[11].payload = FlippedPayload(12);
  std::vector<store::RecordedEvent> replaced(events.begin(), events.begin() + 12);
  // Only seq 12's own hashes, from its genuine predecessors.
  verifier_testing::Rehash(replaced);
  ASSERT_NO_FATAL_FAILURE(WriteRow(replaced[11]));

  EXPECT_THAT(VerifyWholeLog().problem,
              IsProblem(13, kProblemChainBreak,
                        "the prev_chain_hash of seq 13 is " + Prefix(events[12].prev_chain_hash) +
                            ", the chain_hash of seq 12 is " + Prefix(replaced[11].chain_hash)));
}

TEST_F(LogVerifierTest, RehashedFromTheEditedRowOnIsCaughtByTheNextCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  std::vector<store::RecordedEvent> events = Events();
  const std::string signed_hash = events[19].chain_hash;
  events[11].payload = FlippedPayload(12);
  verifier_testing::Rehash(events);
  for (size_t i = 11; i < events.size(); ++i) ASSERT_NO_FATAL_FAILURE(WriteRow(events[i]));

  const Verdict verdict = VerifyWholeLog();
  EXPECT_THAT(verdict.problem,
              IsProblem(20, kProblemCheckpointMismatch,
                        "the checkpoint at seq 20 states chain hash " + Prefix(signed_hash) +
                            ", the event at seq 20 has " + Prefix(events[19].chain_hash)));
  EXPECT_EQ(verdict.checkpoints_checked, 1);
}

TEST_F(LogVerifierTest, DeletedRowIsAGapAtItsSeq) {
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  ASSERT_EQ(RawExec("DELETE FROM events WHERE seq = 12"), "");

  EXPECT_THAT(VerifyWholeLog().problem, IsProblem(12, kProblemGap, "seq 12 is missing"));
}

TEST_F(LogVerifierTest, DeletedTailIsCaughtByTheHeadOrTheNewestCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(kEvents, *key_));
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  ASSERT_EQ(RawExec("DELETE FROM events WHERE seq > 27"), "");

  // The running store still knows its head.
  EXPECT_THAT(VerifyWholeLog().problem,
              IsProblem(28, kProblemTruncated,
                        "the log's head is seq 30, its events end at seq 27"));
  // After a restart only the checkpoint remembers seq 30.
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  EXPECT_THAT(VerifyWholeLog().problem,
              IsProblem(30, kProblemCheckpointMismatch,
                        "the checkpoint at seq 30 names an event the log does not hold"));
  EXPECT_THAT(VerifyTail(5).problem,
              IsProblem(30, kProblemCheckpointMismatch,
                        "the checkpoint at seq 30 names an event the log does not hold"));
}

TEST_F(LogVerifierTest, EditedCheckpointRowIsACheckpointMismatch) {
  ASSERT_EQ(RawExec("DROP TRIGGER checkpoints_refuse_update;"
                    "UPDATE checkpoints SET chain_hash = zeroblob(32) WHERE seq = 10"),
            "");

  EXPECT_THAT(VerifyWholeLog().problem,
              IsProblem(10, kProblemCheckpointMismatch,
                        HasSubstr("the checkpoint at seq 10 states chain hash 000000000000...")));
}

TEST_F(LogVerifierTest, CheckpointSignedByAnotherKeyIsABadSignature) {
  ASSERT_NO_FATAL_FAILURE(SaveCheckpointAt(25, *other_key_));

  const Verdict verdict = VerifyWholeLog();
  EXPECT_THAT(verdict.problem,
              IsProblem(25, kProblemBadSignature, HasSubstr(other_key_->key_id())));
  EXPECT_EQ(verdict.checkpoints_checked, 2);
}

// --- Projection snapshots (docs/audit.md, "Snapshots") ---

// Stores a snapshot of `projection` at `seq` holding `state`, sealed with `key` for the event
// the log holds there.
void SaveSealedSnapshot(store::EventStore& store, const std::string& projection, int64_t seq,
                        const std::string& state, const SigningKey& key) {
  ASSERT_OK_AND_ASSIGN(std::optional<store::RecordedEvent> event, store.ReadEvent(seq));
  ASSERT_TRUE(event.has_value());
  store::Snapshot snapshot{.projection = projection, .seq = seq, .state = state};
  ASSERT_OK(SealSnapshot(key, event->chain_hash, snapshot));
  ASSERT_OK(store.SaveSnapshot(snapshot));
}

TEST_F(LogVerifierTest, EverySealedSnapshotIsCheckedAndCounted) {
  for (int64_t seq : {10, 25}) {
    ASSERT_NO_FATAL_FAILURE(SaveSealedSnapshot(*store_, "credentials", seq, "c", *key_));
    ASSERT_NO_FATAL_FAILURE(SaveSealedSnapshot(*store_, "status", seq, "s", *key_));
  }
  const Verdict verdict = VerifyWholeLog();
  EXPECT_THAT(verdict.problem, NoProblem());
  EXPECT_EQ(verdict.snapshots_checked, 4);
  EXPECT_THAT(FormatVerdict(verdict), ::testing::EndsWith(", 4 snapshots verified\n"));
}

// The attack on the read models: a snapshot's state rewritten in the file, its seal left.
TEST_F(LogVerifierTest, AForgedSnapshotStateIsASnapshotMismatchAtItsSeq) {
  ASSERT_NO_FATAL_FAILURE(SaveSealedSnapshot(*store_, "credentials", 10, "genuine", *key_));
  ASSERT_NO_FATAL_FAILURE(SaveSealedSnapshot(*store_, "credentials", 25, "genuine", *key_));
  ASSERT_EQ(RawExec("UPDATE projection_snapshots SET state = x'666f72676564' WHERE seq = 25"), "");
  const Verdict verdict = VerifyWholeLog();
  EXPECT_THAT(verdict.problem,
              IsProblem(25, kProblemSnapshotMismatch,
                        HasSubstr("snapshot \"credentials\" at seq 25: its state hashes to")));
  EXPECT_EQ(verdict.snapshots_checked, 1);
  EXPECT_THAT(FormatVerdict(verdict),
              ::testing::StartsWith("FAILED at seq 25: snapshot mismatch: snapshot "));
}

TEST_F(LogVerifierTest, ASnapshotSignedByAKeyNotGivenIsASnapshotMismatch) {
  ASSERT_NO_FATAL_FAILURE(SaveSealedSnapshot(*store_, "status", 10, "s", *other_key_));
  EXPECT_THAT(VerifyWholeLog().problem,
              IsProblem(10, kProblemSnapshotMismatch,
                        HasSubstr("is signed by key \"" + other_key_->key_id() + "\"")));
  KeyRing both;
  both.Add(key_->public_key());
  both.Add(other_key_->public_key());
  ASSERT_OK_AND_ASSIGN(Verdict verdict, VerifyLog(*store_, both, 0));
  EXPECT_THAT(verdict.problem, NoProblem());
}

// A history rewritten after the newest checkpoint (seq 20) and re-hashed consistently
// verifies as a chain; a snapshot sealed before the rewrite no longer names the event at its
// seq.
TEST_F(LogVerifierTest, ARehashedTailAfterTheNewestCheckpointIsFoundByASnapshotInIt) {
  ASSERT_NO_FATAL_FAILURE(SaveSealedSnapshot(*store_, "credentials", 25, "c", *key_));
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  std::vector<store::RecordedEvent> events = Events({});
  events[22].payload = FlippedPayload(23);
  verifier_testing::Rehash(events);  // seqs 1..22 keep their hashes
  for (const store::RecordedEvent& e : events) ASSERT_NO_FATAL_FAILURE(WriteRow(e));
  EXPECT_THAT(VerifyWholeLog().problem,
              IsProblem(25, kProblemSnapshotMismatch,
                        HasSubstr("snapshot \"credentials\" at seq 25 states chain hash")));
}

TEST_F(LogVerifierTest, HeadBelowMinSeqIsStale) {
  EXPECT_THAT(VerifyWholeLog(/*min_seq=*/kEvents + 1).problem,
              IsProblem(0, kProblemStale, "the log ends at head seq 30, before --min-seq 31"));
}

TEST_F(LogVerifierTest, TailVerifiesItsWindowAndTheNewestCheckpoint) {
  // The checkpoint at seq 20 lies before the window of 10 and inside the window of 15.
  for (int64_t window : {10, 15}) {
    const Verdict verdict = VerifyTail(window);
    EXPECT_THAT(verdict.problem, NoProblem()) << window;
    EXPECT_EQ(verdict.events, window);
    EXPECT_EQ(verdict.first_seq, kEvents - window + 1);
    EXPECT_EQ(verdict.last_seq, kEvents);
    EXPECT_EQ(verdict.checkpoints_checked, 1) << window;
  }
  EXPECT_EQ(VerifyTail(10, /*with_key=*/false).checkpoints_checked, 0);
  EXPECT_EQ(VerifyTail(100).events, kEvents);
}

TEST_F(LogVerifierTest, TailMissesNoTamperedEventInsideItsWindow) {
  ASSERT_NO_FATAL_FAILURE(DropEventTriggers());
  for (int64_t seq = kEvents - 9; seq <= kEvents; ++seq) {
    const std::string genuine = EventAt(seq).payload;
    ASSERT_NO_FATAL_FAILURE(SetBlob(seq, "payload", FlippedPayload(seq)));
    EXPECT_THAT(VerifyTail(10).problem, IsProblem(seq, kProblemDigestMismatch, ::testing::_))
        << seq;
    ASSERT_NO_FATAL_FAILURE(SetBlob(seq, "payload", genuine));
  }
  EXPECT_THAT(VerifyTail(10).problem, NoProblem());
}

TEST_F(LogVerifierTest, TailChecksTheNewestCheckpointBeforeItsWindow) {
  ASSERT_EQ(RawExec("DROP TRIGGER checkpoints_refuse_update;"
                    "UPDATE checkpoints SET chain_hash = zeroblob(32) WHERE seq = 20"),
            "");

  EXPECT_THAT(VerifyTail(5).problem, IsProblem(20, kProblemCheckpointMismatch,
                                               HasSubstr("the checkpoint at seq 20")));
}

TEST_F(LogVerifierTest, TailNeedsAPositiveEventCount) {
  EXPECT_THAT(VerifyLogTail(*store_, 0, nullptr), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace log_verifier_test
}  // namespace credledger::audit
