// Stored events in tests: compared field by field, so a failure names the field that differs;
// and made by hand from typed events, for folds that read no hashes.
#pragma once

#include <cstdint>
#include <string>

#include "credledger/v1/events.pb.h"
#include "gtest/gtest.h"
#include "store/event_codec.h"
#include "store/event_store.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {

// Expects every stored field of `got` (positions, id, type, time, bytes, hashes) to equal
// `want`'s.
inline void ExpectSameEvent(const store::RecordedEvent& got, const store::RecordedEvent& want) {
  EXPECT_EQ(got.seq, want.seq);
  EXPECT_EQ(got.stream, want.stream);
  EXPECT_EQ(got.stream_version, want.stream_version);
  EXPECT_EQ(got.event_id, want.event_id);
  EXPECT_EQ(got.type, want.type);
  EXPECT_EQ(got.schema_version, want.schema_version);
  EXPECT_EQ(got.recorded_at_us, want.recorded_at_us);
  EXPECT_EQ(got.metadata, want.metadata);
  EXPECT_EQ(got.payload, want.payload);
  EXPECT_EQ(got.digest, want.digest);
  EXPECT_EQ(got.prev_chain_hash, want.prev_chain_hash);
  EXPECT_EQ(got.chain_hash, want.chain_hash);
  EXPECT_EQ(got.stream_hash, want.stream_hash);
}

// `event` as the store would hand it over at `seq` in `stream` (at `version`), recorded at
// `recorded_at_us` (unix microseconds): encoded by the codec, without id, metadata or hashes.
inline store::RecordedEvent StoredEvent(int64_t seq, const std::string& stream, int64_t version,
                                        int64_t recorded_at_us, const v1::Event& event) {
  absl::StatusOr<store::NewEvent> encoded =
      store::EventCodec::Default().Encode(event, v1::EventMetadata());
  EXPECT_OK(encoded);
  store::RecordedEvent stored;
  stored.seq = seq;
  stored.stream = stream;
  stored.stream_version = version;
  stored.recorded_at_us = recorded_at_us;
  if (encoded.ok()) {
    stored.type = encoded->type;
    stored.schema_version = encoded->schema_version;
    stored.payload = encoded->payload;
  }
  return stored;
}

}  // namespace credledger::testing
