// Fuzz target: offline verification of exports, VerifyExport (audit/export_verifier.h).
// At start it builds a small valid export (six events over two streams, a signed checkpoint
// and a signed version 2 trailer, with a key generated for the run) in both verifiable
// formats and checks that both verify. Each input then either edits one of them (its last
// byte modulo 3 picks the format, since FuzzedDataProvider takes integers from the end; the
// rest is a list of edits: change, insert or delete bytes, duplicate, drop or swap lines),
// or, when that byte is 2 modulo 3, the rest is verified as a file of its own (the seed
// standalone_v2 holds an export with a version 2 trailer signed by another key). Properties:
// nothing crashes or hangs, and an export left unedited verifies.
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "audit/export_format.h"
#include "audit/export_verifier.h"
#include "audit/signed_records.h"
#include "audit/signing_key.h"
#include "fuzzer/FuzzedDataProvider.h"
#include "store/event_codec.h"
#include "store/log_hash.h"
#include "test/fuzz/fuzz_check.h"

namespace credledger::fuzz {
namespace {

using audit::ExportFormat;

struct Baseline {
  audit::KeyRing keys;
  std::vector<std::string> lines[2];  // per format: kJsonLines, kCloudEvents
};

// Version `version` of Target `name`'s stream: its registration, then rotation requests.
v1::Event NthEvent(const std::string& name, int64_t version) {
  v1::Event event;
  if (version == 0) {
    event.mutable_target_registered()->set_target_uid("uid-" + name);
    event.mutable_target_registered()->set_namespace_("fleet");
    event.mutable_target_registered()->set_name(name);
  } else {
    event.mutable_rotation_requested()->set_target_uid("uid-" + name);
    event.mutable_rotation_requested()->set_request_value(absl::StrCat("rotate-", version));
  }
  return event;
}

Baseline* MakeBaseline() {
  auto* baseline = new Baseline;
  auto key = audit::SigningKey::Generate();
  FuzzCheck(key.ok(), "generating the signing key", key.status());
  baseline->keys.Add(key->public_key());

  std::vector<store::RecordedEvent> events;
  std::map<std::string, std::pair<int64_t, std::string>> streams;  // version, hash
  std::string chain = store::ZeroHash();
  for (int i = 0; i < 6; ++i) {
    const std::string name = i % 2 == 0 ? "edge-1" : "edge-2";
    const std::string stream = "target/fleet/" + name;
    auto [it, added] = streams.try_emplace(stream, -1, store::ZeroHash());
    v1::EventMetadata metadata;
    metadata.set_actor("alice");
    metadata.set_request_id(absl::StrCat("req-", i));
    auto encoded =
        store::EventCodec::Default().Encode(NthEvent(name, it->second.first + 1), metadata);
    FuzzCheck(encoded.ok(), "encoding a baseline event", encoded.status());
    store::RecordedEvent e;
    e.seq = i + 1;
    e.stream = stream;
    e.stream_version = ++it->second.first;
    e.event_id = store::EventIdFor(metadata.request_id(), 0);
    e.type = encoded->type;
    e.schema_version = encoded->schema_version;
    e.recorded_at_us = 1'790'000'000'000'000 + i * 1'000'000;
    e.metadata = encoded->metadata;
    e.payload = encoded->payload;
    e.digest = store::EventDigest(e);
    e.prev_chain_hash = chain;
    e.chain_hash = chain = store::NextChainHash(chain, e.digest);
    e.stream_hash = it->second.second = store::NextChainHash(it->second.second, e.digest);
    events.push_back(std::move(e));
  }

  v1::ExportTrailer trailer;
  trailer.set_version(audit::kTrailerVersion);
  audit::LinesHash lines;
  for (const store::RecordedEvent& e : events) lines.Add(e);
  trailer.set_lines_hash(lines.value());
  trailer.set_first_seq(events.front().seq);
  trailer.set_last_seq(events.back().seq);
  trailer.set_event_count(static_cast<int64_t>(events.size()));
  trailer.set_head_seq(events.back().seq);
  trailer.set_head_chain_hash(events.back().chain_hash);
  for (const auto& [stream, head] : streams) {
    v1::StreamHead* stream_head = trailer.add_streams();
    stream_head->set_stream(stream);
    stream_head->set_stream_version(head.first);
    stream_head->set_stream_hash(head.second);
  }
  trailer.set_exported_at_us(events.back().recorded_at_us + 1'000'000);
  auto checkpoint = audit::SignCheckpoint(*key, 3, events[2].chain_hash, events[2].recorded_at_us);
  FuzzCheck(checkpoint.ok(), "signing the checkpoint", checkpoint.status());
  *trailer.mutable_checkpoint() = *checkpoint;
  const absl::Status signed_trailer = audit::SignTrailer(*key, trailer);
  FuzzCheck(signed_trailer.ok(), "signing the trailer", signed_trailer);

  for (ExportFormat format : {ExportFormat::kJsonLines, ExportFormat::kCloudEvents}) {
    std::vector<std::string>& lines = baseline->lines[static_cast<int>(format)];
    for (const store::RecordedEvent& e : events) {
      auto line = audit::RenderEvent(format, e, store::EventCodec::Default());
      FuzzCheck(line.ok(), "rendering a baseline event", line.status());
      lines.push_back(*std::move(line));
    }
    lines.push_back(audit::RenderTrailer(format, trailer));
  }
  return baseline;
}

// The baseline of this run, made on first use.
const Baseline& TheBaseline() {
  static const Baseline* baseline = MakeBaseline();
  return *baseline;
}

audit::Verdict Verify(const std::string& file, const audit::KeyRing& keys) {
  std::istringstream in(file);
  audit::ExportVerifyOptions options;
  options.public_key = &keys;
  // Without a database there is nothing to read, so no error.
  absl::StatusOr<audit::Verdict> verdict = audit::VerifyExport(in, options);
  FuzzCheck(verdict.ok(), "verifying without a database failed", verdict.status());
  return *std::move(verdict);
}

// Applies the edits `input` describes to `lines`; returns how many changed something.
int ApplyEdits(FuzzedDataProvider& input, std::vector<std::string>& lines) {
  int edits = 0;
  while (input.remaining_bytes() > 0 && !lines.empty()) {
    const size_t at = input.ConsumeIntegralInRange<size_t>(0, lines.size() - 1);
    std::string& line = lines[at];
    const size_t pos = input.ConsumeIntegralInRange<size_t>(0, line.size());
    switch (input.ConsumeIntegralInRange<int>(0, 5)) {
      case 0: {  // overwrite bytes
        const std::string bytes = input.ConsumeRandomLengthString(16);
        line.replace(pos, bytes.size(), bytes);
        break;
      }
      case 1:  // insert bytes
        line.insert(pos, input.ConsumeRandomLengthString(16));
        break;
      case 2:  // delete bytes
        line.erase(pos, input.ConsumeIntegralInRange<size_t>(1, 16));
        break;
      case 3:  // duplicate the line
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), line);
        break;
      case 4:  // drop the line
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
        break;
      default:  // swap with another line
        std::swap(line, lines[input.ConsumeIntegralInRange<size_t>(0, lines.size() - 1)]);
        break;
    }
    ++edits;
  }
  return edits;
}

}  // namespace
}  // namespace credledger::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using credledger::fuzz::FuzzCheck;
  const auto& baseline = credledger::fuzz::TheBaseline();
  for (const auto& lines : baseline.lines) {
    const auto verdict = credledger::fuzz::Verify(absl::StrJoin(lines, "\n"), baseline.keys);
    FuzzCheck(verdict.ok(), "the baseline export does not verify: " +
                                (verdict.problem ? verdict.problem->detail : std::string()));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& baseline = credledger::fuzz::TheBaseline();
  FuzzedDataProvider input(data, size);
  const int mode = input.ConsumeIntegralInRange<int>(0, 2);
  if (mode == 2) {
    credledger::fuzz::Verify(input.ConsumeRemainingBytesAsString(), baseline.keys);
    return 0;
  }
  std::vector<std::string> lines = baseline.lines[mode];
  const int edits = credledger::fuzz::ApplyEdits(input, lines);
  const auto verdict = credledger::fuzz::Verify(absl::StrJoin(lines, "\n"), baseline.keys);
  credledger::fuzz::FuzzCheck(edits > 0 || verdict.ok(), "an unedited export does not verify");
  return 0;
}
