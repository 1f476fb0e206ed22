// A typed conformance suite every EventStore implementation must pass (docs/testing.md, "Store
// conformance").
//
// The cases live in this header so that each implementation's test instantiates them.
// To run it against an implementation, define a factory with
//   static std::unique_ptr<store::EventStore> Open(const std::filesystem::path& dir,
//                                                  common::Clock* clock);
// that opens (or reopens) the store kept in `dir`, and instantiate:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Name, EventStoreConformanceTest, ::testing::Types<Factory>);
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/event_store.h"
#include "store/log_hash.h"
#include "test/store/placeholder_snapshot.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {

// A clock a test can move freely, backwards included (FakeClock never goes back).
class SteerableClock final : public common::Clock {
 public:
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  bool SleepUntil(absl::Time, absl::Mutex&, absl::CondVar&, const bool&) override {
    return true;
  }
  void Set(absl::Time t) {
    absl::MutexLock lock(&mu_);
    now_ = t;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_) = absl::FromUnixSeconds(1767225600);
};

template <typename Factory>
class EventStoreConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  void Reopen() {
    store_.reset();
    store_ = Factory::Open(dir_.path(), &clock_);
    ASSERT_NE(store_, nullptr);
  }

  testing::TempDir dir_;
  SteerableClock clock_;
  std::unique_ptr<EventStore> store_;
};

TYPED_TEST_SUITE_P(EventStoreConformanceTest);

namespace conformance {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

inline NewEvent Event(const std::string& payload) {
  return NewEvent{"credledger.v1.ServiceConfigured", 1, "meta:" + payload, payload};
}

inline AppendRequest Request(const std::string& request_id, const std::string& stream,
                      ExpectedVersion expected, std::vector<std::string> payloads) {
  AppendRequest request{request_id, {StreamAppend{stream, expected, {}}}};
  for (const std::string& p : payloads) request.streams[0].events.push_back(Event(p));
  return request;
}

inline std::vector<int64_t> Seqs(const std::vector<RecordedEvent>& events) {
  std::vector<int64_t> out;
  for (const RecordedEvent& e : events) out.push_back(e.seq);
  return out;
}

inline std::vector<std::string> Payloads(const std::vector<RecordedEvent>& events) {
  std::vector<std::string> out;
  for (const RecordedEvent& e : events) out.push_back(e.payload);
  return out;
}

}  // namespace conformance

using namespace conformance;  // NOLINT: the helpers above

TYPED_TEST_P(EventStoreConformanceTest, EmptyLogHasHeadZeroAndReadsNothing) {
  EXPECT_EQ(this->store_->HeadSeq(), 0);
  ASSERT_OK_AND_ASSIGN(auto events, this->store_->ReadAll(0, 10));
  EXPECT_THAT(events, IsEmpty());
}

TYPED_TEST_P(EventStoreConformanceTest, AppendAssignsGapFreeSeqAndStreamVersions) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::NoStream(), {"a0", "a1"})));
  ASSERT_OK(this->store_->Append(Request("r2", "s/b", ExpectedVersion::NoStream(), {"b0"})));
  ASSERT_OK_AND_ASSIGN(auto result,
                       this->store_->Append(Request("r3", "s/a", ExpectedVersion::Exactly(1),
                                                    {"a2"})));
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_EQ(result.events[0].seq, 4);
  EXPECT_EQ(result.events[0].stream_version, 2);
  EXPECT_FALSE(result.replayed);
  EXPECT_EQ(this->store_->HeadSeq(), 4);

  ASSERT_OK_AND_ASSIGN(auto all, this->store_->ReadAll(0, 100));
  EXPECT_THAT(Seqs(all), ElementsAre(1, 2, 3, 4));
  ASSERT_OK_AND_ASSIGN(auto a, this->store_->ReadStream("s/a", 0, 100));
  EXPECT_THAT(Payloads(a), ElementsAre("a0", "a1", "a2"));
  ASSERT_OK_AND_ASSIGN(auto tail, this->store_->ReadStream("s/a", 1, 1));
  EXPECT_THAT(Payloads(tail), ElementsAre("a1"));
  ASSERT_OK_AND_ASSIGN(auto page, this->store_->ReadAll(2, 1));
  EXPECT_THAT(Seqs(page), ElementsAre(3));
}

TYPED_TEST_P(EventStoreConformanceTest, StoredBytesAndMetadataRoundTrip) {
  std::string binary("\0\x01\xff payload", 11);
  AppendRequest request = Request("r1", "s/a", ExpectedVersion::Any(), {});
  request.streams[0].events.push_back(NewEvent{"credledger.v1.ServiceConfigured", 1,
                                               std::string("\0m", 2), binary});
  ASSERT_OK(this->store_->Append(request));
  ASSERT_OK_AND_ASSIGN(auto events, this->store_->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].payload, binary);
  EXPECT_EQ(events[0].metadata, std::string("\0m", 2));
  EXPECT_EQ(events[0].type, "credledger.v1.ServiceConfigured");
  EXPECT_EQ(events[0].event_id, EventIdFor("r1", 0));
}

TYPED_TEST_P(EventStoreConformanceTest, ReadAllIntoReplacesWhatThePageHeldWithReadAllsAnswer) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"a0", "a1"})));
  ASSERT_OK(this->store_->Append(Request("r2", "s/b", ExpectedVersion::Any(), {"b0", "b1"})));
  // A page that held more events, with longer strings, than the answer has.
  std::vector<RecordedEvent> page(5);
  for (RecordedEvent& e : page) {
    e.seq = 99;
    e.stream = e.event_id = e.type = e.metadata = e.payload = e.digest = e.prev_chain_hash =
        e.chain_hash = e.stream_hash = std::string(64, 'x');
  }
  ASSERT_OK(this->store_->ReadAllInto(1, 2, EventFields::kAll, page));
  ASSERT_OK_AND_ASSIGN(auto expected, this->store_->ReadAll(1, 2));
  ASSERT_EQ(page.size(), 2u);
  for (size_t i = 0; i < page.size(); ++i) {
    SCOPED_TRACE(i);
    const RecordedEvent& got = page[i];
    const RecordedEvent& want = expected[i];
    EXPECT_EQ(std::tie(got.seq, got.stream, got.stream_version, got.event_id, got.type,
                       got.schema_version, got.recorded_at_us, got.metadata, got.payload,
                       got.digest, got.prev_chain_hash, got.chain_hash, got.stream_hash),
              std::tie(want.seq, want.stream, want.stream_version, want.event_id, want.type,
                       want.schema_version, want.recorded_at_us, want.metadata, want.payload,
                       want.digest, want.prev_chain_hash, want.chain_hash, want.stream_hash));
  }
  EXPECT_THAT(Payloads(page), ElementsAre("a1", "b0"));
  ASSERT_OK(this->store_->ReadAllInto(4, 2, EventFields::kAll, page));
  EXPECT_THAT(page, IsEmpty());
}

TYPED_TEST_P(EventStoreConformanceTest, ReadAllIntoForFoldingGivesReadAllsFoldFields) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"a0", "a1"})));
  ASSERT_OK(this->store_->Append(Request("r2", "s/b", ExpectedVersion::Any(), {"b0"})));
  ASSERT_OK_AND_ASSIGN(auto expected, this->store_->ReadAll(0, 10));
  // Held events with strings in every field, longer than the answer's.
  std::vector<RecordedEvent> page(2);
  for (RecordedEvent& e : page) {
    e.stream = e.event_id = e.type = e.metadata = e.payload = e.digest = e.prev_chain_hash =
        e.chain_hash = e.stream_hash = std::string(64, 'x');
  }
  ASSERT_OK(this->store_->ReadAllInto(0, 10, EventFields::kForFolding, page));
  ASSERT_EQ(page.size(), expected.size());
  for (size_t i = 0; i < page.size(); ++i) {
    SCOPED_TRACE(i);
    const RecordedEvent& got = page[i];
    const RecordedEvent& want = expected[i];
    EXPECT_EQ(std::tie(got.seq, got.stream, got.stream_version, got.type, got.schema_version,
                       got.recorded_at_us, got.payload),
              std::tie(want.seq, want.stream, want.stream_version, want.type, want.schema_version,
                       want.recorded_at_us, want.payload));
    // The rest is either left empty or the stored value, never what the page held.
    const std::pair<const std::string*, const std::string*> rest[] = {
        {&got.event_id, &want.event_id},     {&got.metadata, &want.metadata},
        {&got.digest, &want.digest},         {&got.prev_chain_hash, &want.prev_chain_hash},
        {&got.chain_hash, &want.chain_hash}, {&got.stream_hash, &want.stream_hash}};
    for (const auto& [field, stored] : rest) {
      EXPECT_THAT(*field, ::testing::AnyOf(IsEmpty(), *stored));
    }
  }
}

TYPED_TEST_P(EventStoreConformanceTest, NoStreamExpectationFailsOnExistingStreamAndWritesNothing) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::NoStream(), {"x"})));
  EXPECT_THAT(this->store_->Append(Request("r2", "s/a", ExpectedVersion::NoStream(), {"y"})),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("expected version -1, found 0")));
  EXPECT_EQ(this->store_->HeadSeq(), 1);
}

TYPED_TEST_P(EventStoreConformanceTest, ExactExpectationMismatchIsAbortedAndWritesNothing) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"x", "y"})));
  EXPECT_THAT(this->store_->Append(Request("r2", "s/a", ExpectedVersion::Exactly(0), {"z"})),
              StatusIs(absl::StatusCode::kAborted));
  EXPECT_THAT(this->store_->Append(Request("r3", "s/b", ExpectedVersion::Exactly(0), {"z"})),
              StatusIs(absl::StatusCode::kAborted));
  EXPECT_EQ(this->store_->HeadSeq(), 2);
  EXPECT_OK(this->store_->Append(Request("r4", "s/a", ExpectedVersion::Any(), {"z"})));
  EXPECT_EQ(this->store_->HeadSeq(), 3);
}

TYPED_TEST_P(EventStoreConformanceTest, RetriedRequestIdReturnsOriginalEventsAndAppendsNothing) {
  ASSERT_OK_AND_ASSIGN(auto first, this->store_->Append(Request(
                                       "req-1", "s/a", ExpectedVersion::NoStream(), {"a", "b"})));
  ASSERT_OK(this->store_->Append(Request("req-2", "s/a", ExpectedVersion::Any(), {"c"})));
  // The retry's expected version is stale by now: the id is found before any version check.
  ASSERT_OK_AND_ASSIGN(auto retry, this->store_->Append(Request(
                                       "req-1", "s/a", ExpectedVersion::NoStream(), {"a", "b"})));
  EXPECT_TRUE(retry.replayed);
  EXPECT_EQ(Seqs(retry.events), Seqs(first.events));
  EXPECT_EQ(retry.events[1].chain_hash, first.events[1].chain_hash);
  EXPECT_EQ(this->store_->HeadSeq(), 3);
}

TYPED_TEST_P(EventStoreConformanceTest, MultiStreamAppendIsAtomic) {
  ASSERT_OK(this->store_->Append(Request("r0", "s/b", ExpectedVersion::Any(), {"b0"})));
  AppendRequest both{"r1",
                     {StreamAppend{"s/a", ExpectedVersion::NoStream(), {Event("a0")}},
                      StreamAppend{"s/b", ExpectedVersion::NoStream(), {Event("b1")}}}};
  EXPECT_THAT(this->store_->Append(both), StatusIs(absl::StatusCode::kAborted));
  ASSERT_OK_AND_ASSIGN(auto a, this->store_->ReadStream("s/a", 0, 10));
  EXPECT_THAT(a, IsEmpty());
  EXPECT_EQ(this->store_->HeadSeq(), 1);

  both.streams[1].expected = ExpectedVersion::Exactly(0);
  ASSERT_OK_AND_ASSIGN(auto ok, this->store_->Append(both));
  EXPECT_THAT(Seqs(ok.events), ElementsAre(2, 3));
  EXPECT_EQ(ok.events[1].event_id, EventIdFor("r1", 1));
}

TYPED_TEST_P(EventStoreConformanceTest, ChainAndStreamHashesLinkEveryEvent) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1", "2"})));
  ASSERT_OK(this->store_->Append(Request("r2", "s/b", ExpectedVersion::Any(), {"3"})));
  ASSERT_OK(this->store_->Append(Request("r3", "s/a", ExpectedVersion::Any(), {"4"})));
  ASSERT_OK_AND_ASSIGN(auto events, this->store_->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 4u);
  std::string chain = ZeroHash();
  std::map<std::string, std::string> stream_heads;
  for (const RecordedEvent& e : events) {
    EXPECT_EQ(e.digest, EventDigest(e)) << "seq " << e.seq;
    EXPECT_EQ(e.prev_chain_hash, chain) << "seq " << e.seq;
    chain = NextChainHash(chain, e.digest);
    EXPECT_EQ(e.chain_hash, chain) << "seq " << e.seq;
    auto [it, fresh] = stream_heads.try_emplace(e.stream, ZeroHash());
    it->second = NextChainHash(it->second, e.digest);
    EXPECT_EQ(e.stream_hash, it->second) << "seq " << e.seq;
  }
}

TYPED_TEST_P(EventStoreConformanceTest, RecordedTimesIncreaseStrictlyWhenTheClockStallsOrGoesBack) {
  const absl::Time t = absl::FromUnixMicros(1'800'000'000'000'000);
  this->clock_.Set(t);
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1", "2"})));
  this->clock_.Set(t - absl::Hours(1));
  ASSERT_OK(this->store_->Append(Request("r2", "s/a", ExpectedVersion::Any(), {"3"})));
  this->clock_.Set(t + absl::Seconds(1));
  ASSERT_OK(this->store_->Append(Request("r3", "s/a", ExpectedVersion::Any(), {"4"})));
  ASSERT_OK_AND_ASSIGN(auto events, this->store_->ReadAll(0, 10));
  std::vector<int64_t> times;
  for (const RecordedEvent& e : events) times.push_back(e.recorded_at_us);
  const int64_t us = absl::ToUnixMicros(t);
  EXPECT_THAT(times, ElementsAre(us, us + 1, us + 2, us + 1'000'000));
}

TYPED_TEST_P(EventStoreConformanceTest, FailedCommandLeavesNothingAndTheChainContinues) {
  ASSERT_OK_AND_ASSIGN(auto first,
                       this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1"})));
  absl::Status status = this->store_->Execute([](WriteTransaction& tx) -> absl::Status {
    auto appended = tx.Append(Request("r2", "s/a", ExpectedVersion::Any(), {"2"}));
    if (!appended.ok()) return appended.status();
    return absl::FailedPreconditionError("rejected after writing");
  });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(this->store_->HeadSeq(), 1);
  ASSERT_OK_AND_ASSIGN(auto next,
                       this->store_->Append(Request("r2", "s/a", ExpectedVersion::Exactly(0),
                                                    {"2b"})));
  EXPECT_EQ(next.events[0].seq, 2);
  EXPECT_EQ(next.events[0].prev_chain_hash, first.events[0].chain_hash);
}

TYPED_TEST_P(EventStoreConformanceTest, CommandReadsItsOwnWritesAndRequestHistory) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1"})));
  ASSERT_OK(this->store_->Execute([](WriteTransaction& tx) -> absl::Status {
    auto prior = tx.FindRequest("r1");
    EXPECT_TRUE(prior.ok() && prior->size() == 1);
    auto none = tx.FindRequest("unknown");
    EXPECT_TRUE(none.ok() && none->empty());
    auto appended = tx.Append(Request("r2", "s/a", ExpectedVersion::Exactly(0), {"2"}));
    if (!appended.ok()) return appended.status();
    auto version = tx.StreamVersion("s/a");
    EXPECT_TRUE(version.ok() && *version == 1);
    auto events = tx.ReadStream("s/a", 1);
    EXPECT_TRUE(events.ok() && events->size() == 1 && (*events)[0].payload == "2");
    return absl::OkStatus();
  }));
  EXPECT_EQ(this->store_->HeadSeq(), 2);
}

TYPED_TEST_P(EventStoreConformanceTest, InvalidRequestsAreRejectedAndWriteNothing) {
  EXPECT_THAT(this->store_->Append(Request("", "s/a", ExpectedVersion::Any(), {"1"})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("request_id")));
  EXPECT_THAT(this->store_->Append(Request("r", "", ExpectedVersion::Any(), {"1"})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stream")));
  EXPECT_THAT(this->store_->Append(Request("r", "s/a", ExpectedVersion::Any(), {})),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(this->store_->HeadSeq(), 0);
}

TYPED_TEST_P(EventStoreConformanceTest, SeqAtTimeFindsTheLastEventAtOrBeforeTheTime) {
  const absl::Time t = absl::FromUnixSeconds(1'800'000'000);
  for (int i = 0; i < 3; ++i) {
    this->clock_.Set(t + absl::Seconds(10 * i));
    ASSERT_OK(this->store_->Append(
        Request("r" + std::to_string(i), "s/a", ExpectedVersion::Any(), {"x"})));
  }
  const int64_t us = absl::ToUnixMicros(t);
  EXPECT_EQ(*this->store_->SeqAtTime(us - 1), 0);
  EXPECT_EQ(*this->store_->SeqAtTime(us), 1);
  EXPECT_EQ(*this->store_->SeqAtTime(us + 15'000'000), 2);
  EXPECT_EQ(*this->store_->SeqAtTime(us + 100'000'000), 3);
}

TYPED_TEST_P(EventStoreConformanceTest, SnapshotLookupFindsTheNearestEarlierOne) {
  std::vector<std::string> payloads(20, "x");
  ASSERT_OK_AND_ASSIGN(AppendResult log,
                       this->store_->Append(Request("r", "s/a", ExpectedVersion::Any(), payloads)));
  auto at = [&](const std::string& projection, int64_t seq, const std::string& state) {
    return testing::PlaceholderSnapshot(projection, seq, state, log.events[seq - 1].chain_hash);
  };
  ASSERT_OK(this->store_->SaveSnapshot(at("credentials", 10, "state@10")));
  ASSERT_OK(this->store_->SaveSnapshot(at("credentials", 20, "state@20")));
  ASSERT_OK(this->store_->SaveSnapshot(at("reports", 15, "other")));
  ASSERT_OK_AND_ASSIGN(auto at15, this->store_->LoadSnapshot("credentials", 15));
  ASSERT_TRUE(at15.has_value());
  EXPECT_EQ(at15->seq, 10);
  EXPECT_EQ(at15->state, "state@10");
  ASSERT_OK_AND_ASSIGN(auto latest, this->store_->LoadSnapshot("credentials", 1'000));
  EXPECT_EQ(latest->state, "state@20");
  ASSERT_OK_AND_ASSIGN(auto none, this->store_->LoadSnapshot("credentials", 9));
  EXPECT_FALSE(none.has_value());
}

TYPED_TEST_P(EventStoreConformanceTest, EventsSurviveReopenAndTheChainContinues) {
  ASSERT_OK_AND_ASSIGN(auto before,
                       this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1"})));
  this->Reopen();
  EXPECT_EQ(this->store_->HeadSeq(), 1);
  ASSERT_OK_AND_ASSIGN(auto retry,
                       this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1"})));
  EXPECT_TRUE(retry.replayed);
  ASSERT_OK_AND_ASSIGN(auto after,
                       this->store_->Append(Request("r2", "s/a", ExpectedVersion::Exactly(0),
                                                    {"2"})));
  EXPECT_EQ(after.events[0].prev_chain_hash, before.events[0].chain_hash);
  EXPECT_GT(after.events[0].recorded_at_us, before.events[0].recorded_at_us);
}

TYPED_TEST_P(EventStoreConformanceTest, WaitForHeadReturnsOnceAnEventIsCommitted) {
  EXPECT_EQ(this->store_->WaitForHead(0, absl::ZeroDuration()), 0);
  std::thread writer([&] {
    ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1"})));
  });
  EXPECT_EQ(this->store_->WaitForHead(0, absl::Seconds(30)), 1);
  writer.join();
}

TYPED_TEST_P(EventStoreConformanceTest, ReadFilteredSelectsBySeqStreamPrefixAndType) {
  EventStore& store = *this->store_;
  ASSERT_OK(store.Append(Request("r1", "target/a/x", ExpectedVersion::Any(), {"1", "2"})));
  ASSERT_OK(store.Append(Request("r2", "target/a_/y", ExpectedVersion::Any(), {"3"})));
  ASSERT_OK(store.Append(Request("r3", "target/b/z", ExpectedVersion::Any(), {"4"})));
  AppendRequest typed{"r4", {StreamAppend{"target/a/x", ExpectedVersion::Any(), {}}}};
  typed.streams[0].events.push_back(
      NewEvent{"credledger.v1.TargetRevoked", 1, "meta", "5"});
  ASSERT_OK(store.Append(typed));

  EventFilter all;
  ASSERT_OK_AND_ASSIGN(auto page, store.ReadFiltered(all, 1, 2));
  EXPECT_THAT(Seqs(page), ElementsAre(2, 3));

  EventFilter until;
  until.until_seq = 3;
  ASSERT_OK_AND_ASSIGN(page, store.ReadFiltered(until, 0, 10));
  EXPECT_THAT(Seqs(page), ElementsAre(1, 2, 3));

  EventFilter stream;
  stream.stream = "target/a/x";
  ASSERT_OK_AND_ASSIGN(page, store.ReadFiltered(stream, 0, 10));
  EXPECT_THAT(Seqs(page), ElementsAre(1, 2, 5));

  // The prefix is literal: "_" is not a wildcard, "target/a/" does not match "target/a_/".
  EventFilter prefix;
  prefix.stream_prefix = "target/a/";
  ASSERT_OK_AND_ASSIGN(page, store.ReadFiltered(prefix, 1, 10));
  EXPECT_THAT(Seqs(page), ElementsAre(2, 5));

  EventFilter types;
  types.types = {"credledger.v1.TargetRevoked", "credledger.v1.Unknown"};
  ASSERT_OK_AND_ASSIGN(page, store.ReadFiltered(types, 0, 10));
  EXPECT_THAT(Seqs(page), ElementsAre(5));

  EventFilter both;
  both.stream = "target/a/x";
  both.stream_prefix = "target/";
  EXPECT_THAT(store.ReadFiltered(both, 0, 10), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(store.ReadFiltered(all, 0, 0), StatusIs(absl::StatusCode::kInvalidArgument));
}

inline v1::Checkpoint CheckpointOf(const RecordedEvent& event, const std::string& signature) {
  v1::Checkpoint c;
  c.set_seq(event.seq);
  c.set_chain_hash(event.chain_hash);
  c.set_signed_at_us(event.recorded_at_us + 1);
  c.set_key_id("0123456789abcdef");
  c.set_signature(signature);
  return c;
}

TYPED_TEST_P(EventStoreConformanceTest, CheckpointsNameLogEventsInIncreasingSeq) {
  EventStore& store = *this->store_;
  ASSERT_OK_AND_ASSIGN(auto appended,
                       store.Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1", "2", "3"})));
  const std::vector<RecordedEvent>& e = appended.events;
  ASSERT_OK_AND_ASSIGN(auto none, store.LatestCheckpoint());
  EXPECT_FALSE(none.has_value());

  ASSERT_OK(store.SaveCheckpoint(CheckpointOf(e[1], "sig-2")));
  // Not above the newest, a chain hash that is not the event's, and a seq past the head.
  EXPECT_THAT(store.SaveCheckpoint(CheckpointOf(e[0], "sig-1")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("newest checkpoint")));
  v1::Checkpoint wrong_hash = CheckpointOf(e[2], "sig-3");
  wrong_hash.set_chain_hash(e[1].chain_hash);
  EXPECT_THAT(store.SaveCheckpoint(wrong_hash),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("chain_hash")));
  v1::Checkpoint past_head = CheckpointOf(e[2], "sig-4");
  past_head.set_seq(4);
  EXPECT_THAT(store.SaveCheckpoint(past_head),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an event")));
  EXPECT_THAT(store.SaveCheckpoint(CheckpointOf(e[2], "")),
              StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_OK(store.SaveCheckpoint(CheckpointOf(e[2], "sig-3")));

  ASSERT_OK_AND_ASSIGN(auto latest, store.LatestCheckpoint());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->seq(), 3);
  EXPECT_EQ(latest->chain_hash(), e[2].chain_hash);
  EXPECT_EQ(latest->signed_at_us(), e[2].recorded_at_us + 1);
  EXPECT_EQ(latest->key_id(), "0123456789abcdef");
  EXPECT_EQ(latest->signature(), "sig-3");
  ASSERT_OK_AND_ASSIGN(auto listed, store.ReadCheckpoints(0, 10));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].seq(), 2);
  EXPECT_EQ(listed[1].seq(), 3);
  ASSERT_OK_AND_ASSIGN(listed, store.ReadCheckpoints(2, 10));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].seq(), 3);

  this->Reopen();
  ASSERT_OK_AND_ASSIGN(latest, this->store_->LatestCheckpoint());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->seq(), 3);
}

REGISTER_TYPED_TEST_SUITE_P(
    EventStoreConformanceTest, EmptyLogHasHeadZeroAndReadsNothing,
    ReadFilteredSelectsBySeqStreamPrefixAndType, CheckpointsNameLogEventsInIncreasingSeq,
    AppendAssignsGapFreeSeqAndStreamVersions, StoredBytesAndMetadataRoundTrip,
    ReadAllIntoReplacesWhatThePageHeldWithReadAllsAnswer,
    ReadAllIntoForFoldingGivesReadAllsFoldFields,
    NoStreamExpectationFailsOnExistingStreamAndWritesNothing,
    ExactExpectationMismatchIsAbortedAndWritesNothing,
    RetriedRequestIdReturnsOriginalEventsAndAppendsNothing, MultiStreamAppendIsAtomic,
    ChainAndStreamHashesLinkEveryEvent, RecordedTimesIncreaseStrictlyWhenTheClockStallsOrGoesBack,
    FailedCommandLeavesNothingAndTheChainContinues, CommandReadsItsOwnWritesAndRequestHistory,
    InvalidRequestsAreRejectedAndWriteNothing, SeqAtTimeFindsTheLastEventAtOrBeforeTheTime,
    SnapshotLookupFindsTheNearestEarlierOne, EventsSurviveReopenAndTheChainContinues,
    WaitForHeadReturnsOnceAnEventIsCommitted);

}  // namespace credledger::store
