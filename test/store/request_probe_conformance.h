// The conformance cases of EventStore::ProbeRequest, the committed read a decision taken
// outside the writer checks (docs/testing.md, "Store conformance"; docs/reports.md, "How a
// heartbeat is decided"). Instantiated beside EventStoreConformanceTest, with the same factory:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Name, RequestProbeConformanceTest, ::testing::Types<Factory>);
#pragma once

#include "test/store/event_store_conformance.h"

namespace credledger::store {

template <typename Factory>
class RequestProbeConformanceTest : public EventStoreConformanceTest<Factory> {};

TYPED_TEST_SUITE_P(RequestProbeConformanceTest);

TYPED_TEST_P(RequestProbeConformanceTest, AnEmptyLogKnowsNoRequestAndNoStream) {
  ASSERT_OK_AND_ASSIGN(RequestProbe probe, this->store_->ProbeRequest("r1", "s/a"));
  EXPECT_FALSE(probe.request_used);
  EXPECT_EQ(probe.stream_version, -1);
}

TYPED_TEST_P(RequestProbeConformanceTest, FindsAnAppendedRequestAndTheStreamsLastVersion) {
  ASSERT_OK(this->store_->Append(Request("r1", "s/a", ExpectedVersion::Any(), {"a0", "a1"})));
  ASSERT_OK(this->store_->Append(Request("r2", "s/b", ExpectedVersion::Any(), {"b0"})));
  ASSERT_OK_AND_ASSIGN(RequestProbe probe, this->store_->ProbeRequest("r1", "s/a"));
  EXPECT_TRUE(probe.request_used);
  EXPECT_EQ(probe.stream_version, 1);
  // The two answers are independent: a request of another stream, a stream never written.
  ASSERT_OK_AND_ASSIGN(probe, this->store_->ProbeRequest("r2", "s/a"));
  EXPECT_TRUE(probe.request_used);
  EXPECT_EQ(probe.stream_version, 1);
  ASSERT_OK_AND_ASSIGN(probe, this->store_->ProbeRequest("r3", "s/c"));
  EXPECT_FALSE(probe.request_used);
  EXPECT_EQ(probe.stream_version, -1);
}

TYPED_TEST_P(RequestProbeConformanceTest, ARolledBackRequestWasNeverUsed) {
  absl::Status status = this->store_->Execute([](WriteTransaction& tx) -> absl::Status {
    auto appended = tx.Append(Request("r1", "s/a", ExpectedVersion::Any(), {"1"}));
    if (!appended.ok()) return appended.status();
    return absl::FailedPreconditionError("rejected after writing");
  });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK_AND_ASSIGN(RequestProbe probe, this->store_->ProbeRequest("r1", "s/a"));
  EXPECT_FALSE(probe.request_used);
  EXPECT_EQ(probe.stream_version, -1);
}

REGISTER_TYPED_TEST_SUITE_P(RequestProbeConformanceTest, AnEmptyLogKnowsNoRequestAndNoStream,
                            FindsAnAppendedRequestAndTheStreamsLastVersion,
                            ARolledBackRequestWasNeverUsed);

}  // namespace credledger::store
