// The log's hash encodings, version 1 (docs/log-format.md specifies them byte for byte).
//
//   LP(x)            = 8-byte big-endian length of x, then the bytes of x
//   INT(n)           = n as an 8-byte big-endian two's-complement value
//   digest           = SHA-256( LP("credledger/event/v1") || LP(INT(seq)) || LP(stream)
//                       || LP(INT(stream_version)) || LP(event_id) || LP(type)
//                       || LP(INT(schema_version)) || LP(INT(recorded_at_us))
//                       || LP(metadata) || LP(payload) )
//   chain_hash[n]    = SHA-256( chain_hash[n-1] || digest[n] ), chain_hash[0] = 32 zero bytes
//   stream_hash[v]   = SHA-256( stream_hash[v-1] || digest ), stream_hash[-1] = 32 zero bytes
//   event_id         = first 16 bytes of SHA-256( LP("credledger/event-id/v1")
//                       || LP(request_id) || LP(INT(index)) )
//
// All functions hash the stored bytes as given; none re-serializes a message.
#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "store/event_store.h"

namespace credledger::store {

// 32 zero bytes: the chain hash before seq 1 and the stream hash before stream_version 0.
const std::string& ZeroHash();

// The digest (32 raw bytes) of `event`'s identifying and stored fields; the hash fields of
// `event` are not read.
std::string EventDigest(const RecordedEvent& event);

// SHA-256(previous || digest): the next link of the global or a stream chain (32 raw bytes).
// REQUIRES: previous and digest are 32 bytes each.
std::string NextChainHash(absl::string_view previous, absl::string_view digest);

// Appends LP(bytes) to `out`: the 8-byte big-endian length of `bytes`, then `bytes`. The
// signed records of docs/audit.md use the same encoding.
void AppendLengthPrefixed(std::string* out, absl::string_view bytes);
// Appends LP(INT(value)) to `out`.
void AppendLengthPrefixedInt(std::string* out, int64_t value);

// The event id (16 raw bytes) of the `index`-th event (0-based, across all streams of the
// request) appended by client request `request_id`.
std::string EventIdFor(absl::string_view request_id, int64_t index);

// The log's head as its writer sees it: the last event's seq, chain_hash and recorded_at_us
// (0, ZeroHash() and 0 for an empty log).
struct LogHead {
  int64_t seq = 0;
  std::string chain_hash;
  int64_t recorded_at_us = 0;
};

// The event `in` becomes when appended right after `head`, as the next event of `stream`
// whose last event has version `stream_version` (-1 for an empty stream) and stream hash
// `stream_hash`: its seq, stream version, event id (the `index`-th event of request
// `request_id`), recorded_at_us (`now_us`, or 1 µs after the head's when the clock is behind
// it), digest and both chain links (docs/log-format.md).
RecordedEvent NextEvent(const LogHead& head, absl::string_view stream, int64_t stream_version,
                        absl::string_view stream_hash, absl::string_view request_id, int64_t index,
                        const NewEvent& in, int64_t now_us);

}  // namespace credledger::store
