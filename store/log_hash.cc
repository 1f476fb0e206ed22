#include "store/log_hash.h"

#include <algorithm>

#include "common/sha256.h"

namespace credledger::store {
namespace {

constexpr absl::string_view kDigestTag = "credledger/event/v1";
constexpr absl::string_view kEventIdTag = "credledger/event-id/v1";

std::string BigEndian64(uint64_t value) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  return out;
}

void UpdateBytes(common::Sha256& h, absl::string_view bytes) {
  h.Update(BigEndian64(bytes.size()));
  h.Update(bytes);
}

void UpdateInt(common::Sha256& h, int64_t value) {
  UpdateBytes(h, BigEndian64(static_cast<uint64_t>(value)));
}

// One reusable hasher per thread: creating an EVP context per hash costs more than hashing
// a small event.
common::Sha256& ThreadHasher() {
  thread_local common::Sha256 hasher;
  return hasher;
}

}  // namespace

const std::string& ZeroHash() {
  static const std::string* zero = new std::string(32, '\0');
  return *zero;
}

std::string EventDigest(const RecordedEvent& event) {
  common::Sha256& h = ThreadHasher();
  UpdateBytes(h, kDigestTag);
  UpdateInt(h, event.seq);
  UpdateBytes(h, event.stream);
  UpdateInt(h, event.stream_version);
  UpdateBytes(h, event.event_id);
  UpdateBytes(h, event.type);
  UpdateInt(h, event.schema_version);
  UpdateInt(h, event.recorded_at_us);
  UpdateBytes(h, event.metadata);
  UpdateBytes(h, event.payload);
  return std::string(common::AsBytes(h.Finish()));
}

std::string NextChainHash(absl::string_view previous, absl::string_view digest) {
  common::Sha256& h = ThreadHasher();
  h.Update(previous);
  h.Update(digest);
  return std::string(common::AsBytes(h.Finish()));
}

void AppendLengthPrefixed(std::string* out, absl::string_view bytes) {
  out->append(BigEndian64(bytes.size()));
  out->append(bytes.data(), bytes.size());
}

void AppendLengthPrefixedInt(std::string* out, int64_t value) {
  AppendLengthPrefixed(out, BigEndian64(static_cast<uint64_t>(value)));
}

std::string EventIdFor(absl::string_view request_id, int64_t index) {
  common::Sha256& h = ThreadHasher();
  UpdateBytes(h, kEventIdTag);
  UpdateBytes(h, request_id);
  UpdateInt(h, index);
  return std::string(common::AsBytes(h.Finish())).substr(0, 16);
}

RecordedEvent NextEvent(const LogHead& head, absl::string_view stream, int64_t stream_version,
                        absl::string_view stream_hash, absl::string_view request_id, int64_t index,
                        const NewEvent& in, int64_t now_us) {
  RecordedEvent e;
  e.seq = head.seq + 1;
  e.stream = std::string(stream);
  e.stream_version = stream_version + 1;
  e.event_id = EventIdFor(request_id, index);
  e.type = in.type;
  e.schema_version = in.schema_version;
  e.recorded_at_us = std::max(now_us, head.recorded_at_us + 1);
  e.metadata = in.metadata;
  e.payload = in.payload;
  e.digest = EventDigest(e);
  e.prev_chain_hash = head.chain_hash;
  e.chain_hash = NextChainHash(head.chain_hash, e.digest);
  e.stream_hash = NextChainHash(stream_hash, e.digest);
  return e;
}

}  // namespace credledger::store
