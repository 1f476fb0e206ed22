// The export formats of the log (docs/audit.md, "Export"): rendering exported events and
// the trailer as text lines, and parsing the verifiable formats back.
//
// - kJsonLines: one JSON object per line. Event lines carry seq, stream, stream_version,
//   event_id (hex), type, schema_version, recorded_at (RFC 3339, UTC, exactly 6 fractional
//   digits), actor, request_id, data (the payload's protobuf JSON mapping with proto field
//   names and primitive fields always printed), metadata_b64, payload_b64 (standard base64
//   of the stored bytes), digest, prev_chain_hash, chain_hash, stream_hash (lowercase hex).
//   seq, stream_version and schema_version are JSON numbers. The last line is
//   {"trailer": {...}}: the ExportTrailer in the protobuf JSON mapping with proto field names
//   and primitive fields always printed (int64 as decimal strings, message fields only when
//   set), except that bytes fields are lowercase hex instead of base64 and that version (a
//   number) and lines_hash are printed only when set: a version 1 trailer has neither.
// - kCloudEvents: one CloudEvents 1.0 structured-mode JSON object per line (specversion "1.0",
//   id = event_id hex, source "/credledger", type = the event type, time = recorded_at,
//   subject = stream, datacontenttype "application/json", data as above) with the extension
//   attributes seq, streamversion, schemaversion (decimal strings), actor, requestid,
//   metadatab64, payloadb64, digest, prevchainhash, chainhash, streamhash. The trailer is
//   the last line, a CloudEvent of type "credledger.v1.ExportTrailer" whose data is the
//   trailer as in kJsonLines, with time = exported_at and id = "trailer-" followed by the
//   first 32 lowercase hex characters of SHA-256 over that data's compact JSON (unique per
//   distinct trailer, the same each time the trailer is rendered).
// - kCsv: RFC 4180 (CRLF line ends, fields quoted when they hold a comma, quote, CR or LF,
//   quotes doubled) with a header row: seq, recorded_at, stream, stream_version, type,
//   actor, request_id, data (compact JSON), chain_hash. No trailer, not verifiable.
//
// Lines returned by the Render functions end without a line break (kCsv rows end with CRLF
// included, since a CSV field may itself contain line breaks).
//
// Thread-safety: all functions are thread-safe.
#pragma once

#include <string>
#include <variant>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/audit.pb.h"
#include "nlohmann/json.hpp"
#include "store/event_codec.h"
#include "store/event_store.h"

namespace credledger::audit {

enum class ExportFormat { kJsonLines, kCloudEvents, kCsv };

// "jsonl", "cloudevents" or "csv". Errors: kInvalidArgument naming the accepted values.
absl::StatusOr<ExportFormat> ParseExportFormat(absl::string_view name);
// The flag value of `format` ("jsonl", ...).
absl::string_view ExportFormatName(ExportFormat format);
// Whether the format carries the stored bytes and a trailer (kJsonLines, kCloudEvents).
bool IsVerifiable(ExportFormat format);

// The RecordedEvent of an ExportedEvent and back (field for field).
store::RecordedEvent FromExported(const v1::ExportedEvent& exported);
v1::ExportedEvent ToExported(const store::RecordedEvent& event);

// The first line of a kCsv export: the header row (with its CRLF). Empty for other formats.
std::string RenderHeader(ExportFormat format);
// One event line. `data`, actor and request id are decoded with `codec`.
// Errors: kDataLoss when the payload or metadata does not decode, the payload has no JSON
// form (a Timestamp out of range), or (kJsonLines, kCloudEvents) the stream is not UTF-8.
absl::StatusOr<std::string> RenderEvent(ExportFormat format, const store::RecordedEvent& event,
                                        const store::EventCodec& codec);
// The trailer line; empty for kCsv. A string field that is not UTF-8 is written with
// U+FFFD in its place, so such a trailer no longer verifies.
std::string RenderTrailer(ExportFormat format, const v1::ExportTrailer& trailer);

// An event line of a verifiable export as it stands in the file: the event's stored fields
// (from the line's columns and the base64 bytes) and the derived fields a reader relies on,
// which the verifier checks against the stored bytes.
struct ExportRecord {
  store::RecordedEvent event;
  std::string actor;
  std::string request_id;
  nlohmann::json data;
};

// A parsed line: an event record or the trailer.
using ExportLine = std::variant<ExportRecord, v1::ExportTrailer>;

// The format of a verifiable export from its first line: a JSON object with "specversion"
// is kCloudEvents, any other JSON object kJsonLines. Errors: kInvalidArgument when the line
// is not a JSON object (for example a CSV export, which cannot be verified).
absl::StatusOr<ExportFormat> DetectFormat(absl::string_view first_line);
// Parses one line of a kJsonLines or kCloudEvents export, exactly inverting RenderEvent and
// RenderTrailer; integers may be JSON numbers or decimal strings. Errors: kInvalidArgument
// for a kCsv line, a line that is not a JSON object, or a missing or malformed field, as
// `field "<name>": <rule>` (trailer fields by path, "trailer.checkpoint.chain_hash" or
// "data.streams[0].stream_hash"): wrong JSON type, hex that is not lowercase or not of the
// hash's length, base64 that is not standard with padding, a time that is not RFC 3339 UTC
// with 6 fractional digits, or another CloudEvents specversion than "1.0". A trailer without
// "version" is version 1 and may not hold "lines_hash"; version 2 requires it (32 bytes); a
// version above kTrailerVersion (signed_records.h) is returned holding only its version.
absl::StatusOr<ExportLine> ParseLine(ExportFormat format, absl::string_view line);

}  // namespace credledger::audit
