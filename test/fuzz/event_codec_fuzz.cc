// Fuzz target: the log decoder, EventCodec::Decode and DecodeMetadata
// (store/event_codec.h), on stored rows with arbitrary type, schema version, metadata and
// payload bytes (a log edited by hand or damaged on disk). Properties: every failure is
// kDataLoss; an event that decodes encodes again (Encode) into bytes that decode to the same
// event; on a ReportAccepted payload that decodes, the status projection's summary reader
// (projections/report_summary.h) reads the fields the decoder gives, and on any payload it
// stays within the bytes (sanitizers).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include "fuzzer/FuzzedDataProvider.h"
#include "google/protobuf/util/message_differencer.h"
#include "projections/report_summary.h"
#include "store/event_codec.h"
#include "test/fuzz/fuzz_check.h"
#include "test/support/report_summary_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using credledger::fuzz::CheckDocumentedError;
  using credledger::fuzz::FuzzCheck;
  const credledger::store::EventCodec& codec = credledger::store::EventCodec::Default();
  FuzzedDataProvider input(data, size);

  credledger::store::RecordedEvent event;
  // Mostly a known type (so the payload parser runs), sometimes any text.
  const auto& known = codec.known_types();
  const size_t pick = input.ConsumeIntegralInRange<size_t>(0, known.size());
  if (pick < known.size()) {
    auto it = std::next(known.begin(), static_cast<std::ptrdiff_t>(pick));
    event.type = it->first;
    event.schema_version = it->second - input.ConsumeIntegralInRange<uint32_t>(0, 1);
  } else {
    event.type = input.ConsumeRandomLengthString(64);
    event.schema_version = input.ConsumeIntegral<uint32_t>();
  }
  event.metadata = input.ConsumeRandomLengthString(256);
  event.payload = input.ConsumeRemainingBytesAsString();

  credledger::projections::ReportSummary summary;
  const bool summarized = credledger::projections::ReadReportSummary(event.payload, summary);
  auto metadata = credledger::store::EventCodec::DecodeMetadata(event);
  CheckDocumentedError(metadata.status(), {absl::StatusCode::kDataLoss}, "DecodeMetadata");
  auto decoded = codec.Decode(event);
  CheckDocumentedError(decoded.status(), {absl::StatusCode::kDataLoss}, "Decode");
  if (decoded.ok() && decoded->has_report_accepted() &&
      event.schema_version == codec.known_types().at(event.type)) {
    FuzzCheck(summarized, "a ReportAccepted that decodes has no summary");
    FuzzCheck(credledger::testing::SummaryText(summary) ==
                  credledger::testing::SummaryText(
                      credledger::testing::SummaryOf(decoded->report_accepted())),
              "the summary of a ReportAccepted differs from its decoded fields");
  }
  if (!metadata.ok() || !decoded.ok()) return 0;

  auto encoded = codec.Encode(*decoded, *metadata);
  FuzzCheck(encoded.ok(), "a decoded event does not encode", encoded.status());
  credledger::store::RecordedEvent stored;
  stored.type = encoded->type;
  stored.schema_version = encoded->schema_version;
  stored.metadata = encoded->metadata;
  stored.payload = encoded->payload;
  auto again = codec.Decode(stored);
  FuzzCheck(again.ok(), "an encoded event does not decode", again.status());
  FuzzCheck(google::protobuf::util::MessageDifferencer::Equals(*decoded, *again),
            "an event changes through encode and decode");
  return 0;
}
