// Comparing stored events field by field in tests, so a failure names the field that differs.
#pragma once

#include "gtest/gtest.h"
#include "store/event_store.h"

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

}  // namespace credledger::testing
