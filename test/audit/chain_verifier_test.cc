// ChainVerifier against a real log written by the store, and against the same events after
// an attacker's edits (docs/log-format.md, "Verifying a log by hand").
#include "audit/chain_verifier.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"

namespace credledger::audit {
namespace chain_verifier_test {

using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::Optional;
using verifier_testing::IsProblem;
using verifier_testing::NoProblem;
using verifier_testing::Prefix;
using verifier_testing::Rehash;
using verifier_testing::SpecDigest;
using verifier_testing::SpecSha256;

class ChainVerifierTest : public verifier_testing::VerifierLogTest {
 protected:
  // Adds `events` in order and expects each to pass.
  void AddAll(ChainVerifier& chain, const std::vector<store::RecordedEvent>& events) {
    for (const store::RecordedEvent& e : events) ASSERT_THAT(chain.Add(e), NoProblem());
  }

  // The events without those at `seqs`.
  std::vector<store::RecordedEvent> Without(std::vector<int64_t> seqs) {
    std::vector<store::RecordedEvent> kept;
    for (const store::RecordedEvent& e : Events()) {
      if (std::find(seqs.begin(), seqs.end(), e.seq) == seqs.end()) kept.push_back(e);
    }
    return kept;
  }
};

TEST_F(ChainVerifierTest, AcceptsEveryEventOfARealLog) {
  const std::vector<store::RecordedEvent> events = Events();
  ASSERT_EQ(events.size(), static_cast<size_t>(kEvents));
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, events));

  EXPECT_EQ(chain.events(), kEvents);
  EXPECT_EQ(chain.first_seq(), 1);
  EXPECT_EQ(chain.last_seq(), kEvents);
  EXPECT_EQ(chain.last_chain_hash(), events.back().chain_hash);
  EXPECT_THAT(chain.FirstSeqGap(), NoProblem());
  EXPECT_THAT(chain.FirstStreamGap(/*streams_from_start=*/true), NoProblem());
  std::map<std::string, const store::RecordedEvent*> last_of_stream;
  for (const store::RecordedEvent& e : events) last_of_stream[e.stream] = &e;
  ASSERT_EQ(chain.streams().size(), 4u);
  for (const auto& [stream, state] : chain.streams()) {
    ASSERT_TRUE(last_of_stream.count(stream)) << stream;
    EXPECT_EQ(state.stream_version, last_of_stream[stream]->stream_version) << stream;
    EXPECT_EQ(state.stream_hash, last_of_stream[stream]->stream_hash) << stream;
    EXPECT_EQ(state.first_version, 0) << stream;
  }
  EXPECT_THAT(chain.ChainHashAt(20), Optional(Eq(events[19].chain_hash)));
  EXPECT_EQ(chain.ChainHashAt(kEvents + 1), std::nullopt);
}

TEST_F(ChainVerifierTest, EditedPayloadIsADigestMismatchNamingBothHashes) {
  std::vector<store::RecordedEvent> events = Events();
  const std::string stated = events[11].digest;
  events[11].payload[2] ^= 0x01;
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, {events.begin(), events.begin() + 11}));

  EXPECT_THAT(chain.Add(events[11]),
              IsProblem(12, kProblemDigestMismatch,
                        "the stored bytes of seq 12 hash to " + Prefix(SpecDigest(events[11])) +
                            ", the event states " + Prefix(stated)));
}

TEST_F(ChainVerifierTest, ChainHashNotFollowingFromItsDigestIsAChainBreak) {
  std::vector<store::RecordedEvent> events = Events();
  events[11].chain_hash = std::string(32, 'x');
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, {events.begin(), events.begin() + 11}));

  EXPECT_THAT(chain.Add(events[11]),
              IsProblem(12, kProblemChainBreak, HasSubstr("the chain_hash of seq 12 is 787878")));
}

TEST_F(ChainVerifierTest, PrevChainHashNotThePredecessorsIsAChainBreak) {
  std::vector<store::RecordedEvent> events = Events();
  // Consistent on its own: only the link to seq 11 is wrong.
  events[11].prev_chain_hash = std::string(32, '\x07');
  events[11].chain_hash = SpecSha256(events[11].prev_chain_hash + events[11].digest);
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, {events.begin(), events.begin() + 11}));

  EXPECT_THAT(chain.Add(events[11]),
              IsProblem(12, kProblemChainBreak,
                        "the prev_chain_hash of seq 12 is " + Prefix(events[11].prev_chain_hash) +
                            ", the chain_hash of seq 11 is " + Prefix(events[10].chain_hash)));
}

TEST_F(ChainVerifierTest, SeqOneMustChainFromZeroBytes) {
  store::RecordedEvent first = Events().front();
  first.prev_chain_hash = std::string(32, '\x01');
  first.chain_hash = SpecSha256(first.prev_chain_hash + first.digest);
  ChainVerifier chain;

  EXPECT_THAT(chain.Add(first),
              IsProblem(1, kProblemChainBreak, HasSubstr("not 32 zero bytes")));
}

TEST_F(ChainVerifierTest, EditedStreamHashIsAStreamChainBreak) {
  std::vector<store::RecordedEvent> events = Events();
  events[11].stream_hash = std::string(32, '\0');
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, {events.begin(), events.begin() + 11}));

  EXPECT_THAT(chain.Add(events[11]),
              IsProblem(12, kProblemStreamChainBreak,
                        HasSubstr("the stream_hash of seq 12 (stream " + events[11].stream)));
}

TEST_F(ChainVerifierTest, LowerSeqAfterAHigherOneIsAReorderingAndRecordsNothing) {
  std::vector<store::RecordedEvent> events = Events();
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, {events.begin(), events.begin() + 11}));
  ASSERT_THAT(chain.Add(events[12]), NoProblem());

  EXPECT_THAT(chain.Add(events[11]), IsProblem(12, kProblemReordering, "seq 12 follows seq 13"));
  EXPECT_EQ(chain.events(), 12);
  EXPECT_EQ(chain.last_seq(), 13);
  EXPECT_THAT(chain.Add(events[13]), NoProblem());
}

TEST_F(ChainVerifierTest, LowerStreamVersionAfterAHigherOneIsAReordering) {
  std::vector<store::RecordedEvent> events = Events();
  // Two events of one stream trade versions; the attacker re-hashes everything.
  std::vector<size_t> of_stream;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].stream == verifier_testing::kEdge1) of_stream.push_back(i);
  }
  ASSERT_GE(of_stream.size(), 3u);
  std::swap(events[of_stream[1]].stream_version, events[of_stream[2]].stream_version);
  Rehash(events);
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, {events.begin(), events.begin() + of_stream[2]}));

  EXPECT_THAT(chain.Add(events[of_stream[2]]),
              IsProblem(events[of_stream[2]].seq, kProblemReordering,
                        HasSubstr("stream target/demo/edge-1: version 1")));
}

TEST_F(ChainVerifierTest, SkippedSeqsAreRecordedAsTheFirstGap) {
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, Without({12, 13, 20})));

  EXPECT_THAT(chain.FirstSeqGap(), IsProblem(12, kProblemGap, "seqs 12..13 are missing"));
  ChainVerifier single;
  ASSERT_NO_FATAL_FAILURE(AddAll(single, Without({20})));
  EXPECT_THAT(single.FirstSeqGap(), IsProblem(20, kProblemGap, "seq 20 is missing"));
}

TEST_F(ChainVerifierTest, StreamGapsDependOnWhetherStreamsMustStartAtZero) {
  const std::vector<store::RecordedEvent> events = Events();
  // Drop edge-2's first event (a late start) and core-1's second one (a skipped version).
  std::vector<const store::RecordedEvent*> edge2, core1;
  for (const store::RecordedEvent& e : events) {
    if (e.stream == verifier_testing::kEdge2) edge2.push_back(&e);
    if (e.stream == verifier_testing::kCore1) core1.push_back(&e);
  }
  ASSERT_GE(edge2.size(), 2u);
  ASSERT_GE(core1.size(), 3u);
  const int64_t late_start_seq = edge2[1]->seq;
  const int64_t skip_seq = core1[2]->seq;
  ASSERT_LT(late_start_seq, skip_seq);
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, Without({edge2[0]->seq, core1[1]->seq})));

  EXPECT_THAT(chain.FirstStreamGap(/*streams_from_start=*/false),
              IsProblem(skip_seq, kProblemGap,
                        absl::StrCat("stream target/prod/core-1: version 1 is missing (version 2 "
                                     "at seq ",
                                     skip_seq, " follows version 0)")));
  EXPECT_THAT(chain.FirstStreamGap(/*streams_from_start=*/true),
              IsProblem(late_start_seq, kProblemGap,
                        absl::StrCat("stream target/demo/edge-2 begins at version 1 (seq ",
                                     late_start_seq, "): version 0 is missing")));
  EXPECT_EQ(chain.streams().at(verifier_testing::kEdge2).first_version, 1);
}

TEST_F(ChainVerifierTest, StreamThatBeginsLateIsAGapOnlyWhenStreamsMustStartAtZero) {
  // A stream export after seq 10: its streams start mid-way, which is fine for a lower bound.
  store::EventFilter filter;
  filter.stream = verifier_testing::kEdge1;
  std::vector<store::RecordedEvent> events;
  for (const store::RecordedEvent& e : Events(filter)) {
    if (e.seq > 10) events.push_back(e);
  }
  ASSERT_FALSE(events.empty());
  ASSERT_GT(events.front().stream_version, 0);
  ChainVerifier chain;
  ASSERT_NO_FATAL_FAILURE(AddAll(chain, events));

  EXPECT_THAT(chain.FirstStreamGap(/*streams_from_start=*/false), NoProblem());
  EXPECT_THAT(chain.FirstStreamGap(/*streams_from_start=*/true),
              IsProblem(events.front().seq, kProblemGap,
                        HasSubstr(absl::StrCat("begins at version ",
                                               events.front().stream_version))));
}

TEST(ChainVerifierWindowTest, ChainHashAtAnswersOnlyForTheRecentWindow) {
  const int64_t count = static_cast<int64_t>(ChainVerifier::kRecentChainHashes) + 2;
  std::vector<store::RecordedEvent> events(count);
  for (int64_t i = 0; i < count; ++i) {
    events[i].seq = i + 1;
    events[i].stream = "s";
    events[i].stream_version = i;
    events[i].event_id = std::string(16, 'e');
    events[i].type = "credledger.v1.ServiceConfigured";
    events[i].schema_version = 1;
    events[i].recorded_at_us = i;
  }
  events[0].prev_chain_hash = std::string(32, '\0');
  Rehash(events);
  ChainVerifier chain;
  for (const store::RecordedEvent& e : events) ASSERT_THAT(chain.Add(e), NoProblem());

  EXPECT_EQ(chain.ChainHashAt(1), std::nullopt);
  EXPECT_EQ(chain.ChainHashAt(2), std::nullopt);
  EXPECT_THAT(chain.ChainHashAt(3), Optional(Eq(events[2].chain_hash)));
  EXPECT_THAT(chain.ChainHashAt(count), Optional(Eq(events.back().chain_hash)));
}

}  // namespace chain_verifier_test
}  // namespace credledger::audit
